package rollout_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/jobs"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/test/jobexec"
	"github.com/NVIDIA/aicr/test/sealtest"
)

// validationIdentity is the identity aicr validate runs as (RES-8).
const validationIdentity = "aicr-operator-validate"

// setupValidationNamespace creates the validation namespace with the validate identity bound
// to cluster-admin, as the chart binds it.
func setupValidationNamespace(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	objs := append([]client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: validationNamespace}}},
		jobexec.ValidateGrants(validationNamespace, validationIdentity)...)
	for _, o := range objs {
		if err := k8s.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err)
		}
	}
}

// TestRolloutValidationJobLifecycle runs deployment validation as real Jobs on the API server,
// played by test/jobexec (RES-7): once the rollout recorded a passing report as evidence the
// Job goes, in the foreground with its run-scoped ConfigMaps; the Job of a failed validation
// stays seven days. The Job runs on the runtime's system node group.
func TestRolloutValidationJobLifecycle(t *testing.T) {
	setupValidationNamespace(t)
	for _, tc := range []struct {
		name, report string
		phase        aicrv1alpha1.Phase
	}{
		{"a recorded report deletes the Job", "validate-deployment-passed.ctrf.json", aicrv1alpha1.PhaseSucceeded},
		{"a failed validation keeps the Job seven days", "validate-deployment-failed.ctrf.json", aicrv1alpha1.PhaseFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			h := newHarness(t, true)
			runner, err := jobs.New(jobs.Config{Sealer: sealtest.New(), Namespace: validationNamespace, OperatorNamespace: operatorNamespace,
				Image: h.opts.ValidationImage, ServiceAccount: validationIdentity}, k8s, k8s)
			require.NoError(t, err)
			h.runner = runner
			report := ctrfReport(t, tc.report)
			exec, err := jobexec.New(controlPlane.Config, scheme, validationNamespace, h.opts.ValidationImage,
				func(*batchv1.Job, *corev1.ConfigMap) jobexec.Result {
					return jobexec.Result{Version: "1.1.0", Data: map[string]string{jobs.OutputKey: string(report)}}
				})
			require.NoError(t, err)
			exec.ExpectServiceAccount(validationIdentity)
			// aicr validate, cluster-admin, runs on the runtime's system node group.
			exec.ExpectNodeSelector(map[string]string{"example.com/pool": "system"})
			execCtx, stop := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() { _ = exec.Run(execCtx); close(done) }()
			t.Cleanup(func() {
				require.NoError(t, k8s.DeleteAllOf(ctx, &batchv1.Job{}, client.InNamespace(validationNamespace),
					client.PropagationPolicy(metav1.DeletePropagationForeground)))
				require.Eventually(t, func() bool {
					list := &batchv1.JobList{}
					return k8s.List(ctx, list, client.InNamespace(validationNamespace)) == nil && len(list.Items) == 0
				}, waitFor, tick)
				stop()
				<-done
			})
			h.start()
			uid := h.createRuntime(validationRequired)
			h.setCandidate(h.writePlanDoc(h.fixturePlan(fixtureInstall, uid), nil), metav1.Condition{})
			ro := h.waitRollout(1)
			h.waitOutcome(ro.Name, tc.phase)
			run := client.ObjectKey{Namespace: validationNamespace, Name: ro.Name + "-validate"}
			assert.Equal(t, []string{run.Name}, exec.Executed())
			assert.Empty(t, exec.Violations())
			if tc.phase == aicrv1alpha1.PhaseFailed {
				job := &batchv1.Job{}
				require.NoError(t, k8s.Get(ctx, run, job))
				assert.Equal(t, jobs.TTLStalled, *job.Spec.TTLSecondsAfterFinished)
				return
			}
			require.Eventually(t, func() bool {
				return apierrors.IsNotFound(k8s.Get(ctx, run, &batchv1.Job{})) &&
					apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: jobs.OutputName(run.Name)},
						&corev1.ConfigMap{}))
			}, waitFor, tick, "the validation Job and its output go once the report is recorded")
		})
	}
}
