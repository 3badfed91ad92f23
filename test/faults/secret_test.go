package faults_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/jobexec"
	"github.com/NVIDIA/aicr/test/sealtest"
)

// TestCredentialSecretFaults: a Job with registry credentials gets its run-scoped Secret
// (RES-8). With the answer to the Secret's create lost, or the create answered 503 or 429, the
// runner's next Start completes the Job: one Secret, created once, owned by the Job, and the
// Job runs.
func TestCredentialSecretFaults(t *testing.T) {
	for _, kind := range []faultKind{lostResponse, unavailable, throttled} {
		t.Run(string(kind), func(t *testing.T) {
			clean(t)
			ctx := context.Background()
			f := newFaults()
			r := &rule{verb: "create", resource: "secrets", namespace: jobNS, fault: kind, times: 1}
			f.inject(r)
			c, err := client.New(f.config("operator"), client.Options{Scheme: scheme})
			require.NoError(t, err)
			runner, err := jobs.New(jobs.Config{Sealer: sealtest.New(), Namespace: jobNS, OperatorNamespace: operatorNS, Image: image, CopierImage: jobexec.CopierImage}, c, c)
			require.NoError(t, err)
			exec, err := jobexec.New(controlPlane.Config, scheme, jobNS, image, func(*batchv1.Job, *corev1.ConfigMap) jobexec.Result {
				return jobexec.Result{Version: version, Data: map[string]string{jobs.OutputKey: "kind: RecipeResult\n"}}
			})
			require.NoError(t, err)
			runCtx, cancel := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() { _ = exec.Run(runCtx); close(done) }()
			t.Cleanup(func() { cancel(); <-done })

			name := "aicr-recipe-credentials"
			spec := ports.JobSpec{
				Name: name, Kind: ports.JobRecipe, Image: image,
				Args:        []string{"--log-json", "recipe", "-o", runner.OutputRef(name)},
				Credentials: []byte(`{"auths":{"registry.example.com":{"auth":"dTpw"}}}`),
				Owner:       ports.ReleaseOwner{RuntimeUID: "uid-1"},
			}
			ref, err := runner.Start(ctx, spec)
			if kind != throttled { // client-go itself retries a 429 that says when
				require.Error(t, err, "the fault reaches the runner")
				ref, err = runner.Start(ctx, spec)
			}
			require.NoError(t, err, "Start again completes the Job")
			require.Equal(t, 1, f.firedCount(r), "the fault was injected")
			require.Eventually(t, func() bool {
				st, err := runner.Status(ctx, ref)
				return err == nil && st.State == ports.JobSucceeded
			}, waitFor, tick, "the Job runs")
			assert.Empty(t, exec.Violations())
			secret := &corev1.Secret{}
			require.NoError(t, k8s.Get(ctx, client.ObjectKey{Namespace: jobNS, Name: jobs.RegistryName(name)}, secret))
			job := &batchv1.Job{}
			require.NoError(t, k8s.Get(ctx, client.ObjectKey{Namespace: jobNS, Name: name}, job))
			assert.Equal(t, job.UID, secret.OwnerReferences[0].UID, "owned by the Job")
			assert.Equal(t, spec.Credentials, secret.Data[corev1.DockerConfigJsonKey])
			_, twice := created(f.recorded())
			assert.Empty(t, twice, "created twice")
			require.NoError(t, k8s.Delete(ctx, secret))
		})
	}
}
