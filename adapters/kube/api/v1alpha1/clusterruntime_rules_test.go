package v1alpha1_test

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

func TestClusterRuntimeRules(t *testing.T) {
	t.Parallel()
	gpu := map[string]aicrv1alpha1.LabelValue{"example.com/pool": "gpu"}
	runRuntimeCases(t, []runtimeCase{
		{name: "CR-1 named cluster is accepted", mutate: func(*aicrv1alpha1.ClusterRuntime) {}},
		{
			name:    "CR-1 another name is refused",
			mutate:  func(cr *aicrv1alpha1.ClusterRuntime) { cr.Name = "cluster-2" },
			wantErr: "the ClusterRuntime must be named cluster",
		},
		{
			name: "CR-3 empty system nodeSelector is refused",
			mutate: func(cr *aicrv1alpha1.ClusterRuntime) {
				cr.Spec.Placement.System.NodeSelector = map[string]aicrv1alpha1.LabelValue{}
			},
			wantErr:   "nodeSelector must have at least one entry",
			wantField: "spec.placement.system",
		},
		{
			name: "CR-3 empty accelerated nodeSelector is refused",
			mutate: func(cr *aicrv1alpha1.ClusterRuntime) {
				cr.Spec.Placement.Accelerated.NodeSelector = map[string]aicrv1alpha1.LabelValue{}
			},
			wantErr:   "nodeSelector must have at least one entry",
			wantField: "spec.placement.accelerated",
		},
		{
			name:    "CR-3 equal system and accelerated selectors are refused",
			mutate:  func(cr *aicrv1alpha1.ClusterRuntime) { cr.Spec.Placement.System.NodeSelector = gpu },
			wantErr: "the system and accelerated nodeSelectors must differ",
		},
		{
			name: "CR-3 selectors differing in one value are accepted",
			mutate: func(cr *aicrv1alpha1.ClusterRuntime) {
				cr.Spec.Placement.System.NodeSelector = map[string]aicrv1alpha1.LabelValue{"example.com/pool": "gpu", "tier": "a"}
			},
		},
		{
			name: "CR-3 Pinned with a digest is accepted",
			mutate: func(cr *aicrv1alpha1.ClusterRuntime) {
				cr.Spec.Selection = aicrv1alpha1.Selection{Policy: aicrv1alpha1.SelectionPinned, PinnedPlanDigest: validDigest}
			},
		},
		{
			name: "CR-3 Pinned without a digest is refused",
			mutate: func(cr *aicrv1alpha1.ClusterRuntime) {
				cr.Spec.Selection = aicrv1alpha1.Selection{Policy: aicrv1alpha1.SelectionPinned}
			},
			wantErr: "pinnedPlanDigest must be set if and only if policy is Pinned",
		},
		{
			name: "CR-3 a digest without Pinned is refused",
			mutate: func(cr *aicrv1alpha1.ClusterRuntime) {
				cr.Spec.Selection = aicrv1alpha1.Selection{Policy: aicrv1alpha1.SelectionLatest, PinnedPlanDigest: validDigest}
			},
			wantErr: "pinnedPlanDigest must be set if and only if policy is Pinned",
		},
		{
			name: "CR-3 a digest with the default policy is refused",
			mutate: func(cr *aicrv1alpha1.ClusterRuntime) {
				cr.Spec.Selection = aicrv1alpha1.Selection{PinnedPlanDigest: validDigest}
			},
			wantErr: "pinnedPlanDigest must be set if and only if policy is Pinned",
		},
		{
			name: "CR-3 a digest with upper-case hex is refused",
			mutate: func(cr *aicrv1alpha1.ClusterRuntime) {
				cr.Spec.Selection = aicrv1alpha1.Selection{Policy: aicrv1alpha1.SelectionPinned, PinnedPlanDigest: strings.ToUpper(validDigest)}
			},
			wantErr: "pinnedPlanDigest must be sha256: followed by 64 lowercase hex digits",
		},
		{
			name: "CR-3 a short digest is refused",
			mutate: func(cr *aicrv1alpha1.ClusterRuntime) {
				cr.Spec.Selection = aicrv1alpha1.Selection{Policy: aicrv1alpha1.SelectionPinned, PinnedPlanDigest: "sha256:abc"}
			},
			wantErr: "pinnedPlanDigest must be sha256: followed by 64 lowercase hex digits",
		},
		{
			name: "CR-3 overrides of one component on different paths are accepted",
			mutate: func(cr *aicrv1alpha1.ClusterRuntime) {
				cr.Spec.Overrides = overrides(2)
			},
		},
		{
			name: "CR-3 duplicate (component, path) overrides are refused",
			mutate: func(cr *aicrv1alpha1.ClusterRuntime) {
				cr.Spec.Overrides = append(overrides(1), aicrv1alpha1.Override{
					Component: "gpu-operator", Path: "a.b", Value: apiextensionsv1.JSON{Raw: []byte(`false`)},
				})
			},
			wantErr: "overrides must be unique by (component, path)",
		},
		{
			name:   "CR-3 a UUID runtimeUID is accepted",
			mutate: func(cr *aicrv1alpha1.ClusterRuntime) { cr.Spec.Adoption = &aicrv1alpha1.Adoption{RuntimeUID: validUID} },
		},
		{
			name: "CR-3 a non-UUID runtimeUID is refused",
			mutate: func(cr *aicrv1alpha1.ClusterRuntime) {
				cr.Spec.Adoption = &aicrv1alpha1.Adoption{RuntimeUID: "not-a-uuid"}
			},
			wantErr: "runtimeUID must be a lowercase UUID",
		},
		{
			name: "CR-4 an invalid nodeSelector key is refused",
			mutate: func(cr *aicrv1alpha1.ClusterRuntime) {
				cr.Spec.Placement.System.NodeSelector = map[string]aicrv1alpha1.LabelValue{"-bad key": "x"}
			},
			wantErr: "nodeSelector keys must be valid Kubernetes label keys",
		},
		{
			name: "CR-4 a nodeSelector key name over 63 characters is refused",
			mutate: func(cr *aicrv1alpha1.ClusterRuntime) {
				cr.Spec.Placement.System.NodeSelector = map[string]aicrv1alpha1.LabelValue{"example.com/" + strings.Repeat("k", 64): "x"}
			},
			wantErr: "nodeSelector keys must be valid Kubernetes label keys",
		},
		{
			name: "CR-4 an invalid nodeSelector value is refused",
			mutate: func(cr *aicrv1alpha1.ClusterRuntime) {
				cr.Spec.Placement.System.NodeSelector = map[string]aicrv1alpha1.LabelValue{"pool": "a b"}
			},
			wantErr: "spec.placement.system.nodeSelector.pool: Invalid value",
		},
		{
			name: "CR-4 criteria keys must be AICR criteria names",
			mutate: func(cr *aicrv1alpha1.ClusterRuntime) {
				cr.Spec.Criteria = map[string]aicrv1alpha1.CriterionValue{"not a name": "x"}
			},
			wantErr: "criteria keys are service, accelerator and os",
		},
		{
			name: "CR-4 a criterion AICR has no snapshot measure for is refused",
			mutate: func(cr *aicrv1alpha1.ClusterRuntime) {
				cr.Spec.Criteria = map[string]aicrv1alpha1.CriterionValue{"service": "eks", "region": "us-east-1"}
			},
			wantErr: "criteria keys are service, accelerator and os",
		},
		{
			name: "CR-4 intent belongs in spec.intent, not in criteria",
			mutate: func(cr *aicrv1alpha1.ClusterRuntime) {
				cr.Spec.Criteria = map[string]aicrv1alpha1.CriterionValue{"intent": "training"}
			},
			wantErr: "intent and platform have their own fields",
		},
		{
			name: "CR-4 tolerationSeconds is refused: aicr bundle cannot carry it",
			mutate: func(cr *aicrv1alpha1.ClusterRuntime) {
				seconds := int64(300)
				cr.Spec.Placement.Accelerated.Tolerations = []aicrv1alpha1.Toleration{{Key: "node.kubernetes.io/unreachable",
					Operator: "Exists", Effect: "NoExecute", TolerationSeconds: &seconds}}
			},
			wantErr:   "toleration flags cannot carry tolerationSeconds",
			wantField: "spec.placement.accelerated.tolerations[0]",
		},
		{
			name: "CR-4 an empty key with an effect is refused",
			mutate: func(cr *aicrv1alpha1.ClusterRuntime) {
				cr.Spec.Placement.System.Tolerations = []aicrv1alpha1.Toleration{{Operator: "Exists", Effect: "NoSchedule"}}
			},
			wantErr: "an empty key tolerates every taint: it needs operator Exists and no effect",
		},
		{
			name: "CR-4 an empty key with operator Equal is refused",
			mutate: func(cr *aicrv1alpha1.ClusterRuntime) {
				cr.Spec.Placement.System.Tolerations = []aicrv1alpha1.Toleration{{Operator: "Equal", Value: "x"}}
			},
			wantErr: "an empty key tolerates every taint: it needs operator Exists and no effect",
		},
		{
			name: "CR-4 operator Exists with a value is refused",
			mutate: func(cr *aicrv1alpha1.ClusterRuntime) {
				cr.Spec.Placement.System.Tolerations = []aicrv1alpha1.Toleration{{Key: "dedicated", Operator: "Exists", Value: "gpu"}}
			},
			wantErr: "operator Exists takes no value",
		},
		{
			name: "CR-4 tolerate every taint and a keyed toleration of any effect are accepted",
			mutate: func(cr *aicrv1alpha1.ClusterRuntime) {
				cr.Spec.Placement.System.Tolerations = []aicrv1alpha1.Toleration{{Operator: "Exists"},
					{Key: "dedicated", Value: "system"}, {Key: "nvidia.com/gpu", Operator: "Exists"}}
			},
		},
		{
			name: "CR-4 duplicate tcpxo interface names are refused",
			mutate: func(cr *aicrv1alpha1.ClusterRuntime) {
				cr.Spec.Configuration = withGKE(append(tcpxo(1), tcpxo(1)...))
			},
			wantErr: "tcpxoInterfaces must be unique by interfaceName",
		},
	})
}
