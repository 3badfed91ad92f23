package chartrender

import "strings"

// RequiredValues are the smallest values the chart renders with: a registry and one component
// namespace.
func RequiredValues() map[string]any {
	return map[string]any{
		"registry":   map[string]any{"repository": "oci://registry.example.com/aicr"},
		"namespaces": map[string]any{"components": Components("gpu-operator")},
	}
}

// Components is the chart's namespaces.components value for namespaces, each privileged (the
// GPU stack's drivers and device plugins run privileged).
func Components(namespaces ...string) []any {
	out := make([]any, len(namespaces))
	for i, ns := range namespaces {
		out[i] = map[string]any{"name": ns, "podSecurity": "privileged"}
	}
	return out
}

// WithValues returns RequiredValues with each dot-separated path of sets set to its value; a
// nil value removes the key.
func WithValues(sets map[string]any) map[string]any {
	v := RequiredValues()
	for path, value := range sets {
		setPath(v, strings.Split(path, "."), value)
	}
	return v
}

func setPath(m map[string]any, path []string, value any) {
	if len(path) == 1 {
		if value == nil {
			delete(m, path[0])
			return
		}
		m[path[0]] = value
		return
	}
	next, ok := m[path[0]].(map[string]any)
	if !ok {
		next = map[string]any{}
		m[path[0]] = next
	}
	setPath(next, path[1:], value)
}
