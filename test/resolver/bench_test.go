package resolver_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/jobs"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// rendering plays aicr bundle --set-json gpu-operator:benchmark=<n> by
// writing the value into the gpu-operator release's cluster-values.yaml, so
// every override value renders a plan of its own digest.
func rendering(tb testing.TB, f jobexec.Fixture) jobexec.Behavior {
	files, err := jobexec.ReadTree(jobexec.Root() + "/test/testdata/aicr/" + v1Synthetic)
	require.NoError(tb, err)
	return func(job *batchv1.Job, in *corev1.ConfigMap) jobexec.Result {
		if ports.JobKind(job.Labels[jobs.KindLabel]) != ports.JobBundle {
			return f.Behavior()(job, in)
		}
		args := jobexec.AICRArgs(job)
		value := "0"
		if i := slices.Index(args, "--set-json"); i >= 0 {
			value = strings.TrimPrefix(args[i+1], "gpu-operator:benchmark=")
		}
		out := make(map[string][]byte, len(files))
		for k, v := range files {
			out[k] = v
		}
		out["009-gpu-operator/cluster-values.yaml"] = []byte("driver:\n  version: 580.105.08\nbenchmark: " + value + "\n")
		archive, err := jobexec.Tar(out)
		if err != nil {
			return jobexec.Result{ExitCode: 8, Log: err.Error()}
		}
		return jobexec.Result{Version: f.Version, Bundle: archive}
	}
}

// BenchmarkResolve_UpdateToPlan measures the time from a ClusterRuntime
// update (a new override value) to its plan ConfigMap written, with an
// instant job executor: the recipe is reused, one bundle Job runs.
func BenchmarkResolve_UpdateToPlan(b *testing.B) {
	f, allowed := fixture(b, "1.1.0", v1Synthetic, nil)
	start(b, options{version: "1.1.0", allowed: allowed, behavior: rendering(b, f)})
	createRuntime(b, runtimeSpec())
	resolved(b, domain.ReasonResolved)
	ctx := context.Background()
	live := &aicrv1alpha1.ClusterRuntime{}
	b.ResetTimer()
	for i := range b.N {
		require.NoError(b, k8s.Get(ctx, client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, live))
		before := live.Status.CandidatePlanDigest
		live.Spec.Overrides = []aicrv1alpha1.Override{{
			Component: "gpu-operator", Path: "benchmark", Value: apiextensionsv1.JSON{Raw: []byte(fmt.Sprint(i + 1))},
		}}
		require.NoError(b, k8s.Update(ctx, live))
		require.Eventually(b, func() bool {
			if k8s.Get(ctx, client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, live) != nil ||
				live.Status.CandidatePlanDigest == before || live.Status.CandidatePlanDigest == "" {
				return false
			}
			name, err := configdoc.PlanConfigMapName(live.Status.CandidatePlanDigest)
			return err == nil && k8s.Get(ctx, client.ObjectKey{Namespace: operatorNS, Name: name}, &corev1.ConfigMap{}) == nil
		}, wait, time.Millisecond)
	}
}
