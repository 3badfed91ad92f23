package jobexec

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/jobs"
)

// FieldManager is the field manager AICR v1's cm:// writer applies its output with.
const FieldManager = "aicr"

// ApplyOutput writes data, and a bundle when not nil, into the ConfigMap namespace/name as AICR
// v1's cm:// writer does (pkg/serializer/configmap.go): a server-side apply by field manager aicr
// with force, of its three labels (OutputLabels) and the data, so the fields it does not apply
// (the operator's labels, annotations and owner) stay as they are. When the API server refuses
// the apply (forbidden, or refused by an admission policy), AICR fails INTERNAL with exit 8, not
// UNAUTHORIZED: that is the Result returned. An error is a request that never got an answer.
func ApplyOutput(ctx context.Context, c client.Client, namespace, name string, data map[string]string, bundle []byte) (*Result, error) {
	cm := corev1ac.ConfigMap(name, namespace).WithLabels(OutputLabels()).WithData(data)
	if bundle != nil {
		cm.WithBinaryData(map[string][]byte{jobs.BundleKey: bundle})
	}
	err := c.Apply(ctx, cm, client.FieldOwner(FieldManager), client.ForceOwnership)
	var status apierrors.APIStatus
	switch {
	case err == nil:
		return nil, nil
	case errors.As(err, &status):
		refused := failure(8, fmt.Sprintf("[INTERNAL] failed to write ConfigMap %s/%s: %v", namespace, name, err))
		return &refused, nil
	}
	return nil, err
}
