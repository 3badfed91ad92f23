package shared

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// AdmissionDigest is the content digest of a policy and its binding, the one the chart's
// aicr-operator.admissionDigests template computes from what it renders: the SHA-256 of the
// policy's spec and the binding's spec as JSON with sorted keys, one per line, without the
// fields the API server defaults where they hold their default (failurePolicy Fail,
// matchPolicy Equivalent, empty namespace and object selectors, rule scope "*"). A default the
// API server adds in a later Kubernetes release makes the digests differ: the guard then
// stalls, it never trusts a policy it cannot compare.
func AdmissionDigest(policy admissionregistrationv1.ValidatingAdmissionPolicySpec,
	binding admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec) (string, error) {
	var lines []string
	for _, spec := range []any{&policy, &binding} {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(spec)
		if err != nil {
			return "", fmt.Errorf("convert %T: %w", spec, err)
		}
		dropDefaults(m)
		b, err := json.Marshal(m)
		if err != nil {
			return "", fmt.Errorf("encode %T: %w", spec, err)
		}
		lines = append(lines, string(b))
	}
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:]), nil
}

// dropDefaults removes from a policy or binding spec the fields the API server defaults, where
// they hold their default, as the chart's aicr-operator.admissionDefaultsDropped does.
func dropDefaults(spec map[string]any) {
	if spec["failurePolicy"] == string(admissionregistrationv1.Fail) {
		delete(spec, "failurePolicy")
	}
	for _, field := range []string{"matchConstraints", "matchResources"} {
		m, ok := spec[field].(map[string]any)
		if !ok {
			continue
		}
		if m["matchPolicy"] == string(admissionregistrationv1.Equivalent) {
			delete(m, "matchPolicy")
		}
		for _, selector := range []string{"namespaceSelector", "objectSelector"} {
			if s, ok := m[selector].(map[string]any); ok && len(s) == 0 {
				delete(m, selector)
			}
		}
		for _, rules := range []string{"resourceRules", "excludeResourceRules"} {
			list, _ := m[rules].([]any)
			for _, r := range list {
				if rule, ok := r.(map[string]any); ok && rule["scope"] == string(admissionregistrationv1.AllScopes) {
					delete(rule, "scope")
				}
			}
		}
	}
}

// CheckAdmissionDigests reports an error unless digests (by policy name, from the chart's
// --admission-digests) names exactly the policies the operator relies on: a policy without
// a digest would be trusted by name alone, and a digest of a policy the operator does not
// know means the chart and the operator are of different releases.
func CheckAdmissionDigests(policies []string, digests map[string]string) error {
	var missing, unknown []string
	for _, name := range policies {
		if _, ok := digests[name]; !ok {
			missing = append(missing, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(digests)) {
		if !slices.Contains(policies, name) {
			unknown = append(unknown, name)
		}
	}
	switch {
	case len(missing) > 0:
		return fmt.Errorf("--admission-digests lacks the digest of %s: install the chart of this operator's release",
			strings.Join(missing, ", "))
	case len(unknown) > 0:
		return fmt.Errorf("--admission-digests names %s, which this operator does not check: install the chart of this operator's release",
			strings.Join(unknown, ", "))
	}
	return nil
}
