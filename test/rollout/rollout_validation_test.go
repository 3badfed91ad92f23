package rollout_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/sealtest"
)

func validationRequired(cr *aicrv1alpha1.ClusterRuntime) {
	cr.Spec.Validation.Deployment = aicrv1alpha1.ValidationRequired
}

// ctrfReport reads a CTRF report of test/testdata/ctrf.
func ctrfReport(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "ctrf", name))
	require.NoError(t, err)
	return raw
}

// validating installs a plan (its document edited by edit, nil: as the resolver writes it)
// with validation Required and waits for the validation run to start.
func (h *harness) validating(edit func(doc *configdoc.Plan)) (string, *aicrv1alpha1.RuntimeRollout) {
	h.t.Helper()
	uid := h.createRuntime(validationRequired)
	digest := h.writePlanDoc(h.fixturePlan(fixtureInstall, uid), edit)
	h.setCandidate(digest, metav1.Condition{})
	ro := h.waitRollout(1)
	ro = h.waitPhase(ro.Name, aicrv1alpha1.PhaseValidating)
	run := ro.Name + "-validate"
	assert.Equal(h.t, run, ro.Status.ValidationRun)
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, domain.ReasonRollingOut, domain.ValidationMessage(ro.Name, run))
	require.Eventually(h.t, func() bool { _, ok := h.jobs.spec(run); return ok }, waitFor, tick)
	return digest, ro
}

// The validation Job runs `aicr validate` of the deployment phase against the plan's
// validation recipe (mounted from its inputs), in the validation namespace, its snapshot agent
// from the same pinned AICR image, and writes its
// CTRF report to its output (RO-10, PLAN-2, docs/design/aicr-cli.md section 8).
func assertValidationJob(t *testing.T, h *harness, run, recipeDoc string) {
	t.Helper()
	spec, ok := h.jobs.spec(run)
	require.True(t, ok)
	assert.Equal(t, ports.JobValidate, spec.Kind)
	assert.Equal(t, h.opts.ValidationImage, spec.Image)
	assert.Equal(t, []string{
		"--log-json", "validate", "-r", ports.JobInputsDir + "/recipe.yaml", "--phase", "deployment",
		"--namespace", validationNamespace, "--image", h.opts.ValidationImage,
		"--fail-on-error=false", "-o", "cm://" + validationNamespace + "/" + run + "-output",
	}, spec.Args)
	assert.Equal(t, map[string][]byte{"recipe.yaml": []byte(recipeDoc)}, spec.Inputs)
}

// A validated success records the evidence annotation once, under the operator's seal, and the
// runtime is RolledOut; the evidence holds the report byte for byte and the plan's bundle digest (RO-6, RO-10, CR-8).
func TestRolloutValidationSuccess(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	digest, ro := h.validating(nil)
	run := ro.Name + "-validate"
	assertValidationJob(t, h, run, recipe(digest, "validation"))
	report := ctrfReport(t, "validate-deployment-passed.ctrf.json")
	h.jobs.finish(run, ports.JobSucceeded, "", report)
	done := h.waitOutcome(ro.Name, aicrv1alpha1.PhaseSucceeded)
	evidence := done.Annotations[aicrv1alpha1.AnnotationEvidence]
	assert.Regexp(t, `^sha256:[a-f0-9]{64}$`, evidence)
	sealed, err := shared.Evidence(sealtest.New(), done)
	require.NoError(t, err, "the operator seals the evidence annotation with it")
	assert.Equal(t, ports.Digest(evidence), sealed)
	ev, ok := h.registry.pushed(ports.Digest(evidence))
	require.True(t, ok, "the annotation names the pushed evidence")
	assert.Equal(t, report, ev.Report)
	assert.Equal(t, bundleDigest(digest), ev.BundleDigest)
	assert.Equal(t, digest, ev.PlanDigest)
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionTrue, domain.ReasonRolledOut, "plan "+digest+" rolled out and validated")
	h.waitKstatus(status.CurrentStatus)
	require.Eventually(t, func() bool { deleted, _ := h.jobs.lifecycle(run); return deleted }, waitFor, tick,
		"RES-7: the validation Job goes once its report is recorded")
}

// A plan written before validationConfigMapRef existed validates against its configMapRef (PLAN-2).
func TestRolloutValidationFallsBackToTheResolvedRecipe(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	digest, ro := h.validating(func(doc *configdoc.Plan) { doc.ValidationConfigMapRef = nil })
	assertValidationJob(t, h, ro.Name+"-validate", recipe(digest, "resolved"))
}

// A validation run that did not complete (non-zero exit) ends the rollout Failed and stalls
// the runtime (RO-10, RO-11).
func TestRolloutValidationFailure(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	_, ro := h.validating(nil)
	h.jobs.fail(ro.Name+"-validate", 8, "readiness pre-flight failed")
	h.waitValidationFailed(ro.Name, "readiness pre-flight failed")
	deleted, retained := h.jobs.lifecycle(ro.Name + "-validate")
	assert.True(t, retained, "RES-7: a failed validation Job is kept seven days")
	assert.False(t, deleted)
}

// A validation run that ended transiently (here AICR exit 6, unavailable) starts a fresh run,
// whose passing report validates the rollout (RES-4, RO-10).
func TestRolloutValidationRetriesATransientEnd(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	_, ro := h.validating(nil)
	h.jobs.fail(ro.Name+"-validate", 6, "service unavailable")
	retry := ro.Name + "-validate-2"
	require.Eventually(t, func() bool { _, started := h.jobs.spec(retry); return started }, waitFor, tick,
		"a fresh run starts")
	assert.Equal(t, retry, h.rollout(ro.Name).Status.ValidationRun)
	h.jobs.finish(retry, ports.JobSucceeded, "", ctrfReport(t, "validate-deployment-passed.ctrf.json"))
	done := h.waitOutcome(ro.Name, aicrv1alpha1.PhaseSucceeded)
	assert.NotEmpty(t, done.Annotations[aicrv1alpha1.AnnotationEvidence])
}

// A completed run whose CTRF report records failed checks ends the rollout Failed, naming the
// counts and the checks, without evidence (RO-10, docs/design/aicr-cli.md section 8).
func TestRolloutValidationFailedReport(t *testing.T) {
	h := newHarness(t, true)
	h.start()
	_, ro := h.validating(nil)
	h.jobs.finish(ro.Name+"-validate", ports.JobSucceeded, "", ctrfReport(t, "validate-deployment-failed.ctrf.json"))
	h.waitValidationFailed(ro.Name, "2 of 4 checks failed: expected-resources, gpu-operator-version")
}

// waitValidationFailed waits for the rollout to fail validation with reason and checks the
// runtime's conditions and that no evidence was recorded.
func (h *harness) waitValidationFailed(name, reason string) {
	h.t.Helper()
	done := h.waitOutcome(name, aicrv1alpha1.PhaseFailed)
	assert.Empty(h.t, done.Annotations[aicrv1alpha1.AnnotationEvidence])
	msg := "rollout " + name + " failed: deployment validation run " + name + "-validate failed: " + reason
	h.waitCondition(aicrv1alpha1.ConditionStalled, metav1.ConditionTrue, string(domain.StallRolloutFailed), msg)
	h.waitCondition(aicrv1alpha1.ConditionReady, metav1.ConditionFalse, domain.ReasonRollingOut, domain.StalledMessage(name, msg))
	h.waitKstatus(status.FailedStatus)
}

// A plan whose validation recipe cannot be used is not rolled out while validation is
// Required: a missing recipe ConfigMap stalls PlanWithoutRecipe (PLAN-5), a recipe that does
// not match the plan's reference PlanUnreadable (PLAN-6), before any step runs (RO-10, RO-11).
func TestRolloutValidationRecipeUnusable(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(doc *configdoc.Plan)
		want    domain.StallReason
		message string
	}{
		{"missing recipe ConfigMap", func(doc *configdoc.Plan) {
			doc.ValidationConfigMapRef = &configdoc.ConfigMapRef{Name: "aicr-recipe-0000000000000000", Digest: "sha256:" + zeros}
		}, domain.StallPlanWithoutRecipe, "recipe ConfigMap " + operatorNamespace + "/aicr-recipe-0000000000000000 not found"},
		{"recipe of another digest", func(doc *configdoc.Plan) {
			doc.ValidationConfigMapRef = &configdoc.ConfigMapRef{Name: doc.ConfigMapRef.Name, Digest: "sha256:" + zeros}
		}, domain.StallPlanUnreadable, "the plan records sha256:" + zeros},
		{"plan without recipes", func(doc *configdoc.Plan) {
			doc.ConfigMapRef, doc.ValidationConfigMapRef = nil, nil
		}, domain.StallPlanWithoutRecipe, "has no recipe and deployment validation is Required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, true)
			h.start()
			uid := h.createRuntime(validationRequired)
			h.setCandidate(h.writePlanDoc(h.fixturePlan(fixtureInstall, uid), tt.edit), metav1.Condition{})
			ro := h.waitRollout(1)
			require.Eventually(t, func() bool {
				c := findCondition(h.rollout(ro.Name).Status.Conditions, "Stalled")
				return c != nil && c.Reason == string(tt.want) && strings.Contains(c.Message, tt.message)
			}, waitFor, tick)
			assert.Zero(t, h.engine.WriteCount(), "no step runs")
		})
	}
}

// Validation Required on the runtime with the chart's validation disabled stalls the rollout
// ValidationUnavailable before any step runs (RO-10).
func TestRolloutValidationUnavailable(t *testing.T) {
	h := newHarness(t, true)
	h.opts.ValidationEnabled = false
	h.start()
	uid := h.createRuntime(validationRequired)
	h.setCandidate(h.writePlan(h.fixturePlan(fixtureInstall, uid)), metav1.Condition{})
	ro := h.waitRollout(1)
	h.waitCondition(aicrv1alpha1.ConditionStalled, metav1.ConditionTrue, string(domain.StallValidationUnavailable), "")
	require.Eventually(t, func() bool {
		c := findCondition(h.rollout(ro.Name).Status.Conditions, "Stalled")
		return c != nil && c.Reason == string(domain.StallValidationUnavailable)
	}, waitFor, tick)
	assert.Zero(t, h.engine.WriteCount(), "no step runs")
	h.waitKstatus(status.FailedStatus)
}
