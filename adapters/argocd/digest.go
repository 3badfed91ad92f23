package argocd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"

	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/ports"
)

// SpecDigest renders the Application spec Apply writes for spec (fill) and returns its
// specDigest: what a plan asks an Application to be. It never reads the cluster. An engine
// that does not know the runtime registry (Config.Registry) cannot render it.
func (e *Engine) SpecDigest(spec ports.ReleaseSpec) (string, error) {
	if e.cfg.Registry == "" {
		return "", fmt.Errorf("render the application of %s: the runtime registry is not known", spec.Ref)
	}
	app := &argov1.Application{}
	if err := e.fill(app, spec); err != nil {
		return "", fmt.Errorf("render the application of %s: %w", spec.Ref, err)
	}
	return specDigest(app.Spec)
}

// specDigest is "sha256:" and the hex SHA-256 of the canonical encoding of what the engine
// owns of an Application's spec: its project, source and sources, destination and sync
// policy, each with the members the API types do not model (a Helm parameter or a second
// destination added by hand changes it). The automation's on/off switch is left out: Suspend
// turns it, and ReleaseStatus.Suspended reports it.
func specDigest(s argov1.ApplicationSpec) (string, error) {
	owned := s.DeepCopy()
	if sp := owned.SyncPolicy; sp != nil && sp.Automated != nil {
		sp.Automated.Enabled = nil
	}
	encoded, err := canonical(owned)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(encoded))
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// liveDigest is the specDigest of a live Application; "" (which matches no plan) when it
// cannot be encoded.
func liveDigest(app *argov1.Application) string {
	d, err := specDigest(app.Spec)
	if err != nil {
		return ""
	}
	return d
}

// Unplanned returns the names of the Applications in the engine namespace whose project is
// the operator's AppProject and that are not the Application of any planned release, with
// or without the operator's labels: an Application created out of band in the project the
// operator's releases deploy through. It never mutates.
func (e *Engine) Unplanned(ctx context.Context, planned []ports.ReleaseRef) ([]string, error) {
	var apps argov1.ApplicationList
	if err := e.cfg.Reader.List(ctx, &apps, client.InNamespace(e.cfg.Namespace)); err != nil {
		return nil, wrap("list applications", err)
	}
	names := make(map[string]bool, len(planned))
	for _, ref := range planned {
		names[ApplicationName(ref)] = true
	}
	var out []string
	for i := range apps.Items {
		if app := &apps.Items[i]; app.Spec.Project == e.cfg.Project && !names[app.Name] {
			out = append(out, app.Name)
		}
	}
	slices.Sort(out)
	return out, nil
}
