package retention

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/mocks"
	"github.com/NVIDIA/aicr/ports"
)

const testRuntimeUID = "0b7e4a51-3f9a-4c0d-8b2e-1a2b3c4d5e6f"

var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// testDigest is a plan digest made of one repeated hex digit per i.
func testDigest(i int) string { return "sha256:" + strings.Repeat(fmt.Sprintf("%x", i%16), 64) }

func testPlanName(i int) string {
	name, _ := configdoc.PlanConfigMapName(testDigest(i))
	return name
}

// testPlan is plan i, created i hours after testNow, referencing recipe-<i> and values-<i>.
func testPlan(i int) planstore.Listed {
	return planstore.Listed{
		Meta: metav1.ObjectMeta{Name: testPlanName(i), CreationTimestamp: metav1.NewTime(testNow.Add(time.Duration(i) * time.Hour)),
			Labels: map[string]string{}, Annotations: map[string]string{aicrv1alpha1.AnnotationPlanDigest: testDigest(i)}},
		Doc: &configdoc.Plan{
			Plan:         domain.Plan{Digest: testDigest(i), RuntimeUID: testRuntimeUID},
			ConfigMapRef: &configdoc.ConfigMapRef{Name: fmt.Sprintf("recipe-%d", i)}, RenderFlags: []string{},
			ValuesRefs: []configdoc.ValuesRef{{Name: fmt.Sprintf("values-%d", i)}},
		},
	}
}

func testObject(name, role, planDigest string) metav1.PartialObjectMetadata {
	o := metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(testNow),
		Labels: map[string]string{aicrv1alpha1.LabelRole: role}, Annotations: map[string]string{}}}
	if planDigest != "" {
		o.Annotations[aicrv1alpha1.AnnotationPlanDigest] = planDigest
	}
	return o
}

func testRuntime() *aicrv1alpha1.ClusterRuntime {
	return &aicrv1alpha1.ClusterRuntime{ObjectMeta: metav1.ObjectMeta{Name: aicrv1alpha1.ClusterRuntimeName, UID: testRuntimeUID}}
}

func doomedNames(d retentionDecision) []string {
	out := make([]string, 0, len(d.owners)+len(d.dependents))
	for _, d := range append(d.owners, d.dependents...) {
		out = append(out, d.kind+"/"+d.meta.Name)
	}
	return out
}

// seven superseded plans 0..6: plans 0 and 1 are beyond the five most recent.
func sevenPlans() []planstore.Listed {
	plans := make([]planstore.Listed, 7)
	for i := range plans {
		plans[i] = testPlan(i)
	}
	return plans
}

func TestRetentionKeepsTheActivePlanDerivedFromRolloutsRET1RO13(t *testing.T) {
	t.Parallel()
	// A restored runtime has no status: its active plan is the target of its newest Succeeded rollout.
	ro := succeeded("rollout-a-1", 0, sealedByTheOperator)
	got := decideRetention(testRuntime(), shared.Release{}, []aicrv1alpha1.RuntimeRollout{ro}, storedObjects{plans: sevenPlans()}, seals(t))
	assert.Equal(t, []string{"plan/" + testPlanName(1)}, doomedNames(got))
}

// TestRetentionCountsOnlySealedSuccesses: a newer rollout labelled Succeeded without the
// operator's seal (another identity wrote the label while the approval binding was missing) does
// not make its target the active plan retention keeps: the sealed success still does, and the
// plan only the unsealed one names is superseded like any other.
func TestRetentionCountsOnlySealedSuccesses(t *testing.T) {
	t.Parallel()
	rollouts := []aicrv1alpha1.RuntimeRollout{succeeded("rollout-a-1", 0, sealedByTheOperator), succeeded("rollout-a-2", 1, "forged")}
	rollouts[1].Annotations[aicrv1alpha1.AnnotationSequence] = "2"
	got := decideRetention(testRuntime(), shared.Release{}, rollouts, storedObjects{plans: sevenPlans()}, seals(t))
	assert.Equal(t, []string{"plan/" + testPlanName(1)}, doomedNames(got))
}

// sealedByTheOperator is the seal the double of the operator's sealer (seals) verifies.
const sealedByTheOperator = "sealed"

// seals is a double of the operator's sealer that verifies sealedByTheOperator only.
func seals(t *testing.T) ports.Sealer {
	s := mocks.NewMockSealer(gomock.NewController(t))
	s.EXPECT().Verify(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(func(_ ports.SealSubject, _ []byte, seal string) error {
		if seal == sealedByTheOperator {
			return nil
		}
		return ports.ErrBadSeal
	}).AnyTimes()
	return s
}

// succeeded is a rollout of the test runtime labelled Succeeded toward plan i, with seal.
func succeeded(name string, i int, seal string) aicrv1alpha1.RuntimeRollout {
	return aicrv1alpha1.RuntimeRollout{ObjectMeta: metav1.ObjectMeta{Name: name,
		Labels:      map[string]string{aicrv1alpha1.LabelOutcome: string(aicrv1alpha1.PhaseSucceeded)},
		Annotations: map[string]string{aicrv1alpha1.AnnotationSeal: seal, aicrv1alpha1.AnnotationSequence: "1"}},
		Spec: aicrv1alpha1.RuntimeRolloutSpec{RuntimeUID: testRuntimeUID, ToPlanDigest: testDigest(i)}}
}

func TestRetentionKeepsThePlansOfARolloutInProgressRET1(t *testing.T) {
	t.Parallel()
	ro := aicrv1alpha1.RuntimeRollout{ObjectMeta: metav1.ObjectMeta{Name: "rollout-a-1"},
		Spec: aicrv1alpha1.RuntimeRolloutSpec{RuntimeUID: testRuntimeUID, FromPlanDigest: testDigest(0), ToPlanDigest: testDigest(1)}}
	got := decideRetention(testRuntime(), shared.Release{}, []aicrv1alpha1.RuntimeRollout{ro}, storedObjects{plans: sevenPlans()}, seals(t))
	assert.Empty(t, got)
}

func TestRetentionKeepsTheCurrentResolutionRET1RET3(t *testing.T) {
	t.Parallel()
	cr := testRuntime()
	current := findCurrentResolution(cr, shared.Release{}, nil)
	plans := sevenPlans()
	plans[0].Meta.Labels[aicrv1alpha1.LabelResolvedBy] = current.bundle // the plan the resolver recorded for the current inputs
	others := []metav1.PartialObjectMetadata{
		testObject(current.snapshot, aicrv1alpha1.RoleSnapshot, ""),
		testObject("aicr-snapshot-newer", aicrv1alpha1.RoleSnapshot, ""),
		testObject("aicr-snapshot-older", aicrv1alpha1.RoleSnapshot, ""),
		testObject(current.recipe, aicrv1alpha1.RoleRecipe, ""),
	}
	others[1].CreationTimestamp = metav1.NewTime(testNow.Add(time.Hour))
	got := decideRetention(cr, shared.Release{}, nil, storedObjects{plans: plans, others: others}, seals(t))
	assert.ElementsMatch(t, []string{"plan/" + testPlanName(1), "snapshot/aicr-snapshot-older"}, doomedNames(got))
}

func TestRetentionKeepsTheRecipeResultARetainedPlanWasRenderedFromRET3(t *testing.T) {
	t.Parallel()
	plans := sevenPlans()
	plans[6].Meta.Labels[aicrv1alpha1.LabelResolvedBy] = shared.BundleJob(testRuntimeUID, "aicr-recipe-kept", nil)
	plans[0].Meta.Labels[aicrv1alpha1.LabelResolvedBy] = shared.BundleJob(testRuntimeUID, "aicr-recipe-gone", nil)
	others := []metav1.PartialObjectMetadata{
		testObject("aicr-recipe-kept", aicrv1alpha1.RoleRecipe, ""),
		testObject("aicr-recipe-gone", aicrv1alpha1.RoleRecipe, ""),
	}
	got := decideRetention(testRuntime(), shared.Release{}, nil, storedObjects{plans: plans, others: others}, seals(t))
	assert.ElementsMatch(t, []string{"plan/" + testPlanName(0), "plan/" + testPlanName(1), "recipe/aicr-recipe-gone"}, doomedNames(got))
}

func TestRetentionKeepsEveryRecipeAndValuesWhileARetainedPlanIsUnreadableRET1(t *testing.T) {
	t.Parallel()
	plans := sevenPlans()
	plans[6].Doc = nil
	others := []metav1.PartialObjectMetadata{
		testObject("recipe-0", aicrv1alpha1.RoleRecipe, testDigest(0)),
		testObject("values-0", aicrv1alpha1.RoleValues, testDigest(0)),
		testObject("aicr-recipe-result", aicrv1alpha1.RoleRecipe, ""),
	}
	got := decideRetention(testRuntime(), shared.Release{}, nil, storedObjects{plans: plans, others: others}, seals(t))
	assert.ElementsMatch(t, []string{"plan/" + testPlanName(0), "plan/" + testPlanName(1)}, doomedNames(got))
	plans[6] = testPlan(6)
	got = decideRetention(testRuntime(), shared.Release{}, nil, storedObjects{plans: plans, others: others}, seals(t))
	assert.ElementsMatch(t, []string{"plan/" + testPlanName(0), "plan/" + testPlanName(1),
		"recipe/recipe-0", "values/values-0", "recipe/aicr-recipe-result"}, doomedNames(got))
}

// TestRetentionNamesTheCurrentResolutionOfTheRelease: the current resolution's Jobs are named
// for the resolver's AICR release, and its recipe for the active plan it inherits from when
// another release rendered that plan, as the resolver names them.
func TestRetentionNamesTheCurrentResolutionOfTheRelease(t *testing.T) {
	t.Parallel()
	rel := shared.Release{Version: "1.2.0", Image: "registry.example.com/aicr:v1.2.0@sha256:12"}
	cr := testRuntime()
	cr.Status.ActivePlanDigest = testDigest(3)
	config, err := shared.AICRConfig(cr)
	require.NoError(t, err)
	snapshot := shared.SnapshotJob(cr, rel)
	for _, tt := range []struct {
		name, image, inherit string
	}{
		{"the active plan is of another release", "registry.example.com/aicr:v1.1.0@sha256:11", testDigest(3)},
		{"the active plan is of this release", rel.Image, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			plans := sevenPlans()
			plans[3].Doc.AICRImage = tt.image
			current := findCurrentResolution(cr, rel, plans)
			assert.Equal(t, snapshot, current.snapshot)
			assert.Equal(t, shared.RecipeJob(cr, rel, snapshot, config, tt.inherit), current.recipe)
		})
	}
}
