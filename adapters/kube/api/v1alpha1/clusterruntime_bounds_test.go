package v1alpha1_test

import (
	"strings"
	"testing"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// boundCase checks one bound: the value at the limit is accepted, one over it is refused.
type boundCase struct {
	name    string
	set     func(cr *aicrv1alpha1.ClusterRuntime, n int)
	limit   int
	wantErr string
}

func TestClusterRuntimeBounds(t *testing.T) {
	t.Parallel()
	bounds := []boundCase{
		{"CR-4 intent", func(cr *aicrv1alpha1.ClusterRuntime, n int) { cr.Spec.Intent = strings.Repeat("i", n) }, 63,
			"spec.intent: Too long: may not be more than 63 bytes"},
		{"CR-4 platform", func(cr *aicrv1alpha1.ClusterRuntime, n int) { cr.Spec.Platform = strings.Repeat("p", n) }, 63,
			"spec.platform: Too long: may not be more than 63 bytes"},
		{"CR-4 profile", func(cr *aicrv1alpha1.ClusterRuntime, n int) { cr.Spec.Profile = strings.Repeat("p", n) }, 63,
			"spec.profile: Too long: may not be more than 63 bytes"},
		{"CR-4 criteria value", func(cr *aicrv1alpha1.ClusterRuntime, n int) {
			cr.Spec.Criteria["service"] = aicrv1alpha1.CriterionValue(strings.Repeat("s", n))
		}, 63, "spec.criteria.service: Too long: may not be more than 63 bytes"},
		{"CR-4 overrides[].component", func(cr *aicrv1alpha1.ClusterRuntime, n int) {
			cr.Spec.Overrides = overrides(1)
			cr.Spec.Overrides[0].Component = strings.Repeat("c", n)
		}, 63, "spec.overrides[0].component: Too long: may not be more than 63 bytes"},
		{"CR-4 overrides items", func(cr *aicrv1alpha1.ClusterRuntime, n int) { cr.Spec.Overrides = overrides(n) }, 64,
			"spec.overrides: Too many: 65: must have at most 64 items"},
		{"CR-4 overrides[].path", func(cr *aicrv1alpha1.ClusterRuntime, n int) {
			cr.Spec.Overrides = overrides(1)
			cr.Spec.Overrides[0].Path = strings.Repeat("p", n)
		}, 256, "spec.overrides[0].path: Too long: may not be more than 256 bytes"},
		{"CR-4 nodeSelector entries", func(cr *aicrv1alpha1.ClusterRuntime, n int) { cr.Spec.Placement.System.NodeSelector = labels(n) }, 16,
			"spec.placement.system.nodeSelector: Too many: 17: must have at most 16 items"},
		{"CR-4 nodeSelector value", func(cr *aicrv1alpha1.ClusterRuntime, n int) {
			cr.Spec.Placement.System.NodeSelector = map[string]aicrv1alpha1.LabelValue{"pool": aicrv1alpha1.LabelValue(strings.Repeat("v", n))}
		}, 63, "spec.placement.system.nodeSelector.pool: Too long: may not be more than 63 bytes"},
		{"CR-4 tolerations", func(cr *aicrv1alpha1.ClusterRuntime, n int) {
			cr.Spec.Placement.Accelerated.Tolerations = tolerations(n)
		}, 16,
			"spec.placement.accelerated.tolerations: Too many: 17: must have at most 16 items"},
		{"CR-4 nodeSelector key prefix", func(cr *aicrv1alpha1.ClusterRuntime, n int) {
			cr.Spec.Placement.System.NodeSelector = map[string]aicrv1alpha1.LabelValue{dnsPrefix(n) + "/pool": "system"}
		}, 253, "nodeSelector keys must be valid Kubernetes label keys"},
		{"CR-4 nodeSelector key name", func(cr *aicrv1alpha1.ClusterRuntime, n int) {
			cr.Spec.Placement.System.NodeSelector = map[string]aicrv1alpha1.LabelValue{"example.com/" + strings.Repeat("k", n): "x"}
		}, 63, "nodeSelector keys must be valid Kubernetes label keys"},
		{"CR-4 accelerated nodeSelector entries", func(cr *aicrv1alpha1.ClusterRuntime, n int) {
			cr.Spec.Placement.Accelerated.NodeSelector = labels(n)
		}, 16, "spec.placement.accelerated.nodeSelector: Too many: 17: must have at most 16 items"},
		{"CR-4 accelerated nodeSelector value", func(cr *aicrv1alpha1.ClusterRuntime, n int) {
			cr.Spec.Placement.Accelerated.NodeSelector = map[string]aicrv1alpha1.LabelValue{"pool": aicrv1alpha1.LabelValue(strings.Repeat("v", n))}
		}, 63, "spec.placement.accelerated.nodeSelector.pool: Too long: may not be more than 63 bytes"},
		{"CR-4 system tolerations", func(cr *aicrv1alpha1.ClusterRuntime, n int) {
			cr.Spec.Placement.System.Tolerations = tolerations(n)
		}, 16, "spec.placement.system.tolerations: Too many: 17: must have at most 16 items"},
		{"CR-4 system toleration key", func(cr *aicrv1alpha1.ClusterRuntime, n int) {
			cr.Spec.Placement.System.Tolerations = []aicrv1alpha1.Toleration{{Key: strings.Repeat("k", n), Operator: "Exists"}}
		}, 317, "spec.placement.system.tolerations[0].key: Too long: may not be more than 317 bytes"},
		{"CR-4 system toleration value", func(cr *aicrv1alpha1.ClusterRuntime, n int) {
			cr.Spec.Placement.System.Tolerations = []aicrv1alpha1.Toleration{{Key: "dedicated", Value: strings.Repeat("v", n)}}
		}, 63, "spec.placement.system.tolerations[0].value: Too long: may not be more than 63 bytes"},
		{"CR-4 tcpxoInterfaces", func(cr *aicrv1alpha1.ClusterRuntime, n int) { cr.Spec.Configuration = withGKE(tcpxo(n)) }, 16,
			"spec.configuration.gke.tcpxoInterfaces: Too many: 17: must have at most 16 items"},
		{"CR-4 tcpxoInterfaces[].interfaceName", func(cr *aicrv1alpha1.ClusterRuntime, n int) {
			cr.Spec.Configuration = withGKE(tcpxo(1))
			cr.Spec.Configuration.GKE.TCPXOInterfaces[0].InterfaceName = strings.Repeat("e", n)
		}, 15, "spec.configuration.gke.tcpxoInterfaces[0].interfaceName: Too long: may not be more than 15 bytes"},
		{"CR-4 tcpxoInterfaces[].network", func(cr *aicrv1alpha1.ClusterRuntime, n int) {
			cr.Spec.Configuration = withGKE(tcpxo(1))
			cr.Spec.Configuration.GKE.TCPXOInterfaces[0].Network = strings.Repeat("n", n)
		}, 63, "spec.configuration.gke.tcpxoInterfaces[0].network: Too long: may not be more than 63 bytes"},
	}
	var cases []runtimeCase
	for _, b := range bounds {
		cases = append(cases,
			runtimeCase{name: b.name + " at its limit is accepted", mutate: func(cr *aicrv1alpha1.ClusterRuntime) { b.set(cr, b.limit) }},
			runtimeCase{name: b.name + " over its limit is refused", mutate: func(cr *aicrv1alpha1.ClusterRuntime) { b.set(cr, b.limit+1) }, wantErr: b.wantErr},
		)
	}
	runRuntimeCases(t, cases)
}

// dnsPrefix is a DNS subdomain of n characters: labels of at most 63 characters joined by dots.
func dnsPrefix(n int) string {
	var parts []string
	for n > 0 {
		size := min(n, 63)
		if n-size == 1 {
			size-- // a last label of one character after its dot keeps the total at n
		}
		parts = append(parts, strings.Repeat(string(rune('a'+len(parts))), size))
		n -= size + 1
	}
	return strings.Join(parts, ".")
}
