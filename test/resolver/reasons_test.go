package resolver_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/NVIDIA/aicr/adapters/jobs"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// failing makes Jobs of kind exit with code and log; other Jobs play f.
func failing(f jobexec.Fixture, kind ports.JobKind, code int32, log string) jobexec.Behavior {
	return func(job *batchv1.Job, in *corev1.ConfigMap) jobexec.Result {
		if ports.JobKind(job.Labels[jobs.KindLabel]) == kind {
			return jobexec.Result{ExitCode: code, Log: "{\"level\":\"INFO\",\"msg\":\"starting\"}\n" + log}
		}
		return f.Behavior()(job, in)
	}
}

// holding leaves Jobs of kind running.
func holding(f jobexec.Fixture, kind ports.JobKind) jobexec.Behavior {
	return func(job *batchv1.Job, in *corev1.ConfigMap) jobexec.Result {
		if ports.JobKind(job.Labels[jobs.KindLabel]) == kind {
			return jobexec.Result{Hold: true}
		}
		return f.Behavior()(job, in)
	}
}

func failed(outer, inner string, code int) string {
	return `{"time":"2026-11-29T12:00:00Z","level":"ERROR","msg":"command failed","module":"aicr","version":"1.1.0","error":"[` +
		outer + `] error building recipe: [` + inner + `] invalid criteria","exitCode":` + string(rune('0'+code)) + `}`
}

type reasonCase struct {
	name     string
	reason   string
	contains string
	spec     func(*aicrv1alpha1.ClusterRuntimeSpec)
	mutate   func(map[string][]byte)
	behavior func(jobexec.Fixture) jobexec.Behavior
	version  string
	allowed  []string
}

// TestResolved_Reasons asserts reason and message of the live Resolved
// condition for every Resolved reason and every discovery and render stall
// (RES-2..6, CR-10).
func TestResolved_Reasons(t *testing.T) {
	for _, tc := range reasonCases() {
		t.Run(tc.name, func(t *testing.T) {
			f, allowed := fixture(t, "1.1.0", v1Synthetic, tc.mutate)
			o := options{version: "1.1.0", allowed: allowed, behavior: f.Behavior()}
			if tc.behavior != nil {
				o.behavior = tc.behavior(f)
			}
			if tc.version != "" {
				o.version = tc.version
			}
			if tc.allowed != nil {
				o.allowed = tc.allowed
			}
			start(t, o)
			spec := runtimeSpec()
			if tc.spec != nil {
				tc.spec(&spec)
			}
			createRuntime(t, spec)
			cond, _ := resolvedWith(t, tc.reason, tc.contains)
			assert.Equal(t, metav1.ConditionFalse, cond.Status)
			assert.Contains(t, cond.Message, tc.contains)
		})
	}
}

func reasonCases() []reasonCase {
	return append(discoveryCases(), append(renderCases(), jobCases()...)...)
}

func discoveryCases() []reasonCase {
	return []reasonCase{
		{name: "NodeGroupEmpty", reason: string(domain.StallNodeGroupEmpty), contains: "placement.accelerated.nodeSelector",
			spec: func(s *aicrv1alpha1.ClusterRuntimeSpec) {
				s.Placement.Accelerated.NodeSelector["aicr.test/pool"] = "none"
			}},
		{name: "PlacementOverlap", reason: string(domain.StallPlacementOverlap), contains: "node gpu-1 matches both",
			spec: func(s *aicrv1alpha1.ClusterRuntimeSpec) {
				s.Placement.System.NodeSelector = map[string]aicrv1alpha1.LabelValue{"aicr.test/zone": "a"}
			}},
		{name: "AcceleratedGroupHeterogeneous", reason: string(domain.StallAcceleratedGroupHeterogeneous), contains: "nvidia.com/gpu.product",
			spec: func(s *aicrv1alpha1.ClusterRuntimeSpec) {
				s.Placement.Accelerated.NodeSelector["aicr.test/pool"] = "gpu-mixed"
			}},
		{name: "InvalidPlacement", reason: string(domain.StallInvalidPlacement), contains: "placement.accelerated.tolerations[0]",
			spec: func(s *aicrv1alpha1.ClusterRuntimeSpec) {
				s.Placement.Accelerated.Tolerations = []aicrv1alpha1.Toleration{{Key: "bad key!", Operator: "Exists"}}
			}},
		{name: "SnapshotIncomplete", reason: string(domain.StallSnapshotIncomplete), contains: "did not measure os",
			behavior: func(f jobexec.Fixture) jobexec.Behavior {
				f.Snapshot = []byte(strings.Replace(string(f.Snapshot), "- type: OS\n", "- type: OSUnread\n", 1))
				return f.Behavior()
			}},
		{name: "CriteriaConflict", reason: string(domain.StallCriteriaConflict), contains: `spec.criteria.service is "gke"`,
			spec: func(s *aicrv1alpha1.ClusterRuntimeSpec) { s.Criteria["service"] = "gke" }},
	}
}

func renderCases() []reasonCase {
	return []reasonCase{
		{name: "OverridePathUnknown", reason: string(domain.StallOverridePathUnknown), contains: `"nosuch"`,
			spec: func(s *aicrv1alpha1.ClusterRuntimeSpec) {
				s.Overrides = []aicrv1alpha1.Override{{Component: "nosuch", Path: "a", Value: apiextensionsv1.JSON{Raw: []byte(`1`)}}}
			}},
		{name: "InvalidOverridePath", reason: string(domain.StallInvalidOverride), contains: "driver..version",
			spec: func(s *aicrv1alpha1.ClusterRuntimeSpec) {
				s.Overrides = []aicrv1alpha1.Override{{Component: "gpu-operator", Path: "driver..version", Value: apiextensionsv1.JSON{Raw: []byte(`1`)}}}
			}},
		{name: "InvalidOverrideSize", reason: string(domain.StallInvalidOverride), contains: "at most 16384",
			spec: func(s *aicrv1alpha1.ClusterRuntimeSpec) {
				big := `"` + strings.Repeat("x", 17<<10) + `"`
				s.Overrides = []aicrv1alpha1.Override{{Component: "gpu-operator", Path: "driver.note", Value: apiextensionsv1.JSON{Raw: []byte(big)}}}
			}},
		{name: "NamespaceNotAllowed", reason: string(domain.StallNamespaceNotAllowed), contains: "namespace monitoring",
			allowed: []string{"cert-manager", "gpu-operator", "kai-scheduler", "kube-system", "kubeflow", "nvidia-dra-driver", "nvsentinel", "skyhook"}},
		{name: "ChartSourceUnsupported", reason: string(domain.StallChartSourceUnsupported), contains: "http://charts.example.com",
			mutate: func(files map[string][]byte) {
				files["009-gpu-operator/upstream.env"] = []byte("CHART='gpu-operator'\nREPO='http://charts.example.com'\nVERSION='v25.10.1'\n")
			}},
		{name: "ContentTooLarge", reason: string(domain.StallContentTooLarge), contains: "at most 1048576",
			mutate: func(files map[string][]byte) {
				files["009-gpu-operator/cluster-values.yaml"] = []byte("padding: " + strings.Repeat("y", 1100<<10) + "\n")
			}},
	}
}

func jobCases() []reasonCase {
	fail := func(kind ports.JobKind, code int32, log string) func(jobexec.Fixture) jobexec.Behavior {
		return func(f jobexec.Fixture) jobexec.Behavior { return failing(f, kind, code, log) }
	}
	return []reasonCase{
		{name: "Resolving", reason: domain.ReasonResolving, contains: "job aicr-recipe-",
			behavior: func(f jobexec.Fixture) jobexec.Behavior { return holding(f, ports.JobRecipe) }},
		{name: "TransientRetries", reason: domain.ReasonResolving, contains: "retrying after a transient failure",
			behavior: fail(ports.JobRecipe, 6, failed("SERVICE_UNAVAILABLE", "SERVICE_UNAVAILABLE", 6))},
		{name: "AICRInvalidRequest", reason: string(domain.StallAICRInvalidRequest), contains: "invalid criteria",
			behavior: fail(ports.JobRecipe, 2, failed("INVALID_REQUEST", "INVALID_REQUEST", 2))},
		{name: "AICRInvalidRequestRootCause", reason: string(domain.StallAICRInvalidRequest), contains: "[INTERNAL] error building recipe",
			behavior: fail(ports.JobRecipe, 8, failed("INTERNAL", "INVALID_REQUEST", 8))},
		{name: "AICRNotFound", reason: string(domain.StallAICRNotFound), contains: "aicr bundle job",
			behavior: fail(ports.JobBundle, 3, failed("NOT_FOUND", "NOT_FOUND", 3))},
		{name: "AICRUnauthorized", reason: string(domain.StallAICRUnauthorized), contains: "aicr snapshot job",
			behavior: fail(ports.JobSnapshot, 4, failed("UNAUTHORIZED", "UNAUTHORIZED", 4))},
		{name: "AICRTimeout", reason: string(domain.StallAICRTimeout), contains: "aicr snapshot job",
			behavior: fail(ports.JobSnapshot, 5, failed("TIMEOUT", "TIMEOUT", 5))},
		{name: "AICRInternal", reason: string(domain.StallAICRInternal), contains: "aicr exited with code 1",
			behavior: fail(ports.JobRecipe, 1, "")},
		{name: "AICRVersionMismatch", reason: string(domain.StallAICRVersionMismatch), contains: `reported version "1.1.0", the operator pins "1.2.0"`,
			version: "1.2.0"},
		{name: "AICRArtifactUnsupported", reason: string(domain.StallAICRArtifactUnsupported), contains: "aicr.nvidia.com/v1alpha1",
			behavior: func(f jobexec.Fixture) jobexec.Behavior {
				f.Recipe = []byte(strings.Replace(string(f.Recipe), "apiVersion: aicr.run/v1", "apiVersion: aicr.nvidia.com/v1alpha1", 1))
				return f.Behavior()
			}},
	}
}
