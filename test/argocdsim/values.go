package argocdsim

import (
	"context"
	"encoding/json"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/adapters/argocd"
	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/ports"
)

// Values returns the Helm values of the Application of ref as Argo CD hands
// them to Helm: helm.valuesObject when set, otherwise the helm.values YAML.
// It reads what the API server stored, so it proves a round trip.
func (s *Sim) Values(ctx context.Context, ref ports.ReleaseRef) (map[string]any, error) {
	app := &argov1.Application{}
	if err := s.c.Get(ctx, client.ObjectKey{Namespace: s.namespace, Name: argocd.ApplicationName(ref)}, app); err != nil {
		return nil, fmt.Errorf("read application of %s: %w", ref, err)
	}
	values := map[string]any{}
	if app.Spec.Source == nil || app.Spec.Source.Helm == nil {
		return values, nil
	}
	h := app.Spec.Source.Helm
	if h.ValuesObject != nil && len(h.ValuesObject.Raw) > 0 {
		if err := json.Unmarshal(h.ValuesObject.Raw, &values); err != nil {
			return nil, fmt.Errorf("decode valuesObject of %s: %w", ref, err)
		}
		return values, nil
	}
	if err := yaml.Unmarshal([]byte(h.Values), &values); err != nil {
		return nil, fmt.Errorf("decode values of %s: %w", ref, err)
	}
	return values, nil
}
