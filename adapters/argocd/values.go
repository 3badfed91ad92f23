package argocd

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
)

// setValues writes values into h. Values without an explicit null go to
// helm.valuesObject; values with one go to helm.values as a YAML string,
// because Argo CD drops nulls inside valuesObject (argo-cd#16312, #19781)
// and an explicit null must reach Helm to delete a chart default (FORMAT.md
// section 5.1). Exactly one of the two fields is set.
func setValues(h *argov1.ApplicationSourceHelm, values map[string]any) error {
	h.Values, h.ValuesObject = "", nil
	if len(values) == 0 {
		return nil
	}
	if hasNull(values) {
		out, err := yaml.Marshal(values)
		if err != nil {
			return fmt.Errorf("encode helm values: %w", err)
		}
		h.Values = string(out)
		return nil
	}
	raw, err := json.Marshal(values)
	if err != nil {
		return fmt.Errorf("encode helm values: %w", err)
	}
	h.ValuesObject = &runtime.RawExtension{Raw: raw}
	return nil
}

// hasNull reports whether v holds an explicit null at any depth.
func hasNull(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case map[string]any:
		for _, e := range t {
			if hasNull(e) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if hasNull(e) {
				return true
			}
		}
	}
	return false
}

// canonical returns v as JSON with sorted keys and no insignificant
// whitespace, so two objects that differ only in encoding compare equal.
func canonical(v any) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode for comparison: %w", err)
	}
	var generic any
	if decodeErr := json.Unmarshal(raw, &generic); decodeErr != nil {
		return "", fmt.Errorf("decode for comparison: %w", decodeErr)
	}
	out, err := json.Marshal(generic)
	if err != nil {
		return "", fmt.Errorf("encode for comparison: %w", err)
	}
	return string(out), nil
}
