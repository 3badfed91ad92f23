package argocd

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/NVIDIA/aicr/ports"
)

// wrap maps an API error onto the port's sentinels: an unknown kind is a
// missing engine, 403 is unauthorized; anything else stays transient.
func wrap(action string, err error) error {
	switch {
	case err == nil:
		return nil
	case meta.IsNoMatchError(err), isMissingResource(err):
		return fmt.Errorf("%s: %w: %w", action, ports.ErrEngineMissing, err)
	case apierrors.IsForbidden(err), apierrors.IsUnauthorized(err):
		return fmt.Errorf("%s: %w: %w", action, ports.ErrUnauthorized, err)
	}
	return fmt.Errorf("%s: %w", action, err)
}

// isMissingResource reports a 404 about the resource type itself (the CRD was
// deleted after the REST mapping was cached), not about one object.
func isMissingResource(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || !apierrors.IsNotFound(err) {
		return false
	}
	details := status.Status().Details
	return details == nil || details.Name == ""
}
