package faults_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/jobs"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/test/jobexec"
	"github.com/NVIDIA/aicr/test/sealtest"
)

const (
	// validationNS is where deployment validation runs, as validateIdentity.
	validationNS     = "aicr-validation"
	validateIdentity = "aicr-validate"
)

// withValidation turns deployment validation on for the operator processes w starts: the
// validation namespace and the validate identity bound to cluster-admin (as the chart binds
// it), and an executor playing `aicr validate` there with a passing report, until the test
// ends. Its Jobs are deleted when the test ends.
func (w *world) withValidation() {
	w.t.Helper()
	ctx := context.Background()
	objs := append([]client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: validationNS}}},
		jobexec.ValidateGrants(validationNS, validateIdentity)...)
	for _, o := range objs {
		if err := k8s.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			require.NoError(w.t, err)
		}
	}
	f, err := jobexec.BundleFixture(version, fixtureDir, nil)
	require.NoError(w.t, err)
	w.validation, err = jobexec.New(controlPlane.Config, scheme, validationNS, image, f.Behavior())
	require.NoError(w.t, err)
	w.validation.ExpectServiceAccount(validateIdentity)
	run, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = w.validation.Run(run) }()
	w.stops = append(w.stops, func() {
		stop()
		<-done
		require.Empty(w.t, w.validation.Violations(), "validate run assertions")
		require.NoError(w.t, k8s.DeleteAllOf(ctx, &batchv1.Job{}, client.InNamespace(validationNS),
			client.PropagationPolicy(metav1.DeletePropagationBackground)))
	})
}

// validationJobs is the runner of deployment validation Jobs of an operator process on mgr.
func (w *world) validationJobs(mgr ctrl.Manager) *jobs.Runner {
	w.t.Helper()
	r, err := jobs.New(jobs.Config{Sealer: sealtest.New(), Namespace: validationNS, OperatorNamespace: operatorNS, Image: image,
		ServiceAccount: validateIdentity}, mgr.GetClient(), mgr.GetAPIReader())
	require.NoError(w.t, err)
	return r
}

// TestRegistryHangsDuringTheEvidencePush: deployment validation is Required, and the runtime
// registry accepts every request and answers none from the moment the validation Job is
// created, so the passed run's evidence cannot be stored. Each push ends at the client's
// timeout, the reconcile returns and retries, and the rollout's Retrying condition is
// HostUnanswered, naming the registry host, the request and the evidence push; once the
// registry answers again the evidence is stored once and the rollout succeeds without a second
// validation run.
func TestRegistryHangsDuringTheEvidencePush(t *testing.T) {
	net := startNetwork(t)
	w := newWorldOn(t, net)
	w.withValidation()
	w.faults.onWrite(&hook{verb: "create", resource: "jobs", namespace: validationNS, run: func(write) { net.Hang("/v2/") }})
	w.start("operator", processOptions{})
	cr := &aicrv1alpha1.ClusterRuntime{ObjectMeta: metav1.ObjectMeta{Name: aicrv1alpha1.ClusterRuntimeName},
		Spec: jobexec.FixtureRuntimeSpec()}
	cr.Spec.Validation.Deployment = aicrv1alpha1.ValidationRequired
	require.NoError(t, k8s.Create(context.Background(), cr))

	var ro aicrv1alpha1.RuntimeRollout
	var retrying *metav1.Condition
	require.Eventually(t, func() bool {
		var list aicrv1alpha1.RuntimeRolloutList
		if k8s.List(context.Background(), &list) != nil || len(list.Items) != 1 {
			return false
		}
		ro = list.Items[0]
		retrying = meta.FindStatusCondition(ro.Status.Conditions, aicrv1alpha1.ConditionRetrying)
		return retrying != nil && retrying.Reason == shared.ReasonHostUnanswered &&
			strings.Contains(retrying.Message, "waiting for "+net.Host()+" to answer ") &&
			strings.Contains(retrying.Message, " /v2/aicr/bundles/cluster/") &&
			strings.Contains(retrying.Message, "push validation evidence")
	}, waitFor, tick, "the rollout's Retrying condition names the registry host, the request and the evidence push")
	t.Logf("while the registry hangs: %s: %s; rollout message %q", retrying.Reason, retrying.Message, ro.Status.Message)
	assert.Equal(t, aicrv1alpha1.PhaseValidating, ro.Status.Phase, "the rollout still validates")
	require.Eventually(t, func() bool { return net.Held() >= 3 }, waitFor, tick, "the push is retried, each ended by the client's timeout")

	answered := time.Now()
	net.Answer()
	done := w.waitOutcome(ro.Name, aicrv1alpha1.PhaseSucceeded)
	t.Logf("recovery: evidence stored and rollout succeeded %s after the registry answered again (client timeout %s)",
		time.Since(answered).Round(time.Millisecond), hangTimeout)
	assert.Regexp(t, `^sha256:[a-f0-9]{64}$`, done.Annotations[aicrv1alpha1.AnnotationEvidence])
	require.Eventually(t, func() bool {
		got := &aicrv1alpha1.RuntimeRollout{}
		return k8s.Get(context.Background(), clientKey(ro.Name), got) == nil &&
			meta.FindStatusCondition(got.Status.Conditions, aicrv1alpha1.ConditionRetrying) == nil
	}, waitFor, tick, "Retrying is removed once the push succeeded")
	assert.Equal(t, []string{ro.Name + "-validate"}, w.validation.Executed(), "one validation run")
	pushed := 0
	for _, x := range net.Requests() {
		if strings.HasPrefix(x, "PUT /v2/aicr/bundles/cluster/manifests/") {
			pushed++
		}
	}
	assert.Equal(t, 1, pushed, "the evidence manifest is stored once")
}
