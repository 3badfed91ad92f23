package retention_test

import (
	"context"
	"fmt"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/retention"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
	"github.com/NVIDIA/aicr/test/sealtest"
)

// Plans of the RET-1 test: superseded plans 1..9 (1 oldest), then the active, candidate and
// pinned plans. Plan 1 shares its recipe with the active plan, plan 3 its validation recipe
// with the candidate's recipe, plans 2 and 9 their values.
const (
	activePlan    = 100
	candidatePlan = 101
	pinnedPlan    = 102
)

type seededPlan struct {
	i                          int
	recipe, validation, values string
}

func seededPlans() []seededPlan {
	plans := []seededPlan{
		{1, "recipe-shared-a", "recipe-s1-validation", "values-s1"},
		{2, "recipe-s2", "", "values-shared"},
		{3, "recipe-s3", "recipe-c", "values-s3"},
		{4, "recipe-s4", "", "values-s4"},
	}
	for i := 5; i <= 8; i++ {
		plans = append(plans, seededPlan{i, fmt.Sprintf("recipe-s%d", i), "", fmt.Sprintf("values-s%d", i)})
	}
	return append(plans,
		seededPlan{9, "recipe-s9", "", "values-shared"},
		seededPlan{activePlan, "recipe-shared-a", "", "values-a"},
		seededPlan{candidatePlan, "recipe-c", "", "values-c"},
		seededPlan{pinnedPlan, "recipe-p", "", "values-p"})
}

func TestRetentionKeepsRET1PlansAndRET3ResultsWithWhatTheyReference(t *testing.T) {
	clean(t)
	t.Cleanup(func() { clean(t) })
	uid := createRuntime(t, func(cr *aicrv1alpha1.ClusterRuntime) {
		cr.Spec.Selection = aicrv1alpha1.Selection{Policy: aicrv1alpha1.SelectionPinned, PinnedPlanDigest: digest(pinnedPlan)}
	}, aicrv1alpha1.ClusterRuntimeStatus{ActivePlanDigest: digest(activePlan), CandidatePlanDigest: digest(candidatePlan)})
	for _, p := range seededPlans() {
		storePlan(t, p.i, uid, p.recipe, p.validation, p.values)
	}
	// Upgrade-check reports: of the candidate, of a deleted plan, and of a deleted plan that a
	// retained rollout records.
	reportDigest := "sha256:" + fmt.Sprintf("%064x", 42)
	recorded, err := configdoc.AssessmentConfigMapName(digest(9000), digest(9001), reportDigest)
	require.NoError(t, err)
	storeDependent(t, "aicr-assessment-c", aicrv1alpha1.RoleAssessment, candidatePlan)
	storeDependent(t, "aicr-assessment-s1", aicrv1alpha1.RoleAssessment, 1)
	storeDependent(t, recorded, aicrv1alpha1.RoleAssessment, 2)
	createRollout(t, "rollout-assessed-1", uid, string(aicrv1alpha1.PhaseFailed), func(ro *aicrv1alpha1.RuntimeRollout) {
		ro.Spec.AssessmentDigest = reportDigest
	})
	// Kept results: two snapshots (the newer stays) and a recipe result no plan was rendered from.
	storeResult(t, "aicr-snapshot-1", aicrv1alpha1.RoleSnapshot)
	storeResult(t, "aicr-snapshot-2", aicrv1alpha1.RoleSnapshot)
	storeResult(t, "aicr-recipe-result-1", aicrv1alpha1.RoleRecipe)

	r, rec := newReconciler(t, k8s)
	res := pass(t, r)
	assert.Equal(t, time.Hour, res.RequeueAfter, "the pass runs again after the interval")

	want := []string{
		planName(5), planName(6), planName(7), planName(8), planName(9),
		planName(activePlan), planName(candidatePlan), planName(pinnedPlan),
		recipeCM("recipe-shared-a"), recipeCM("recipe-c"), recipeCM("recipe-s5"), recipeCM("recipe-s6"), recipeCM("recipe-s7"), recipeCM("recipe-s8"), recipeCM("recipe-s9"), recipeCM("recipe-p"),
		valuesCM("values-shared"), valuesCM("values-a"), valuesCM("values-c"), valuesCM("values-p"), valuesCM("values-s5"), valuesCM("values-s6"), valuesCM("values-s7"), valuesCM("values-s8"),
		"aicr-assessment-c", recorded, "aicr-snapshot-2",
	}
	sort.Strings(want)
	assert.Equal(t, want, configMaps(t, operatorNamespace))
	assert.Equal(t, []string{"rollout-assessed-1"}, rollouts(t))
	require.Len(t, rec.Events, 1)
	assert.Equal(t, "Normal RetentionApplied retention (RET-1..3) deleted 1 assessment, 4 plan, 5 recipe, 1 snapshot, 3 values", <-rec.Events)

	pass(t, r)
	assert.Equal(t, want, configMaps(t, operatorNamespace), "a second pass deletes nothing more")
}

func TestRetentionKeepsRET2RolloutsPerRuntime(t *testing.T) {
	clean(t)
	t.Cleanup(func() { clean(t) })
	uid := createRuntime(t, nil, aicrv1alpha1.ClusterRuntimeStatus{})
	// Runtime A: a rollout in progress, two Succeeded and eleven Failed ones, oldest first;
	// runtime B: two terminal ones. Fifteen terminal rollouts in all.
	createRollout(t, "rollout-a-00-running", uid, "", nil)
	createRollout(t, "rollout-a-01", uid, string(aicrv1alpha1.PhaseSucceeded), nil)
	createRollout(t, "rollout-a-02", uid, string(aicrv1alpha1.PhaseSucceeded), nil)
	for i := 3; i <= 13; i++ {
		createRollout(t, fmt.Sprintf("rollout-a-%02d", i), uid, string(aicrv1alpha1.PhaseFailed), nil)
	}
	createRollout(t, "rollout-b-01", runtimeUIDB, string(aicrv1alpha1.PhaseExpired), nil)
	createRollout(t, "rollout-b-02", runtimeUIDB, string(aicrv1alpha1.PhaseSuperseded), nil)

	r, _ := newReconciler(t, k8s)
	pass(t, r)
	// Newest first, runtime A keeps a-13..a-04 (ten terminal), the newest Succeeded a-02 and
	// the rollout in progress; a-03 and the older Succeeded a-01 go.
	want := []string{"rollout-a-00-running", "rollout-a-02"}
	for i := 4; i <= 13; i++ {
		want = append(want, fmt.Sprintf("rollout-a-%02d", i))
	}
	want = append(want, "rollout-b-01", "rollout-b-02")
	assert.Equal(t, want, rollouts(t))
}

// touchingClient changes the named ConfigMap between the pass listing it and deleting it, as a
// concurrent writer would.
type touchingClient struct {
	client.Client
	t       *testing.T
	name    string
	touched bool
}

func (c *touchingClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	if obj.GetName() == c.name && !c.touched {
		c.touched = true
		cm := &corev1.ConfigMap{}
		require.NoError(c.t, k8s.Get(ctx, client.ObjectKeyFromObject(obj), cm))
		cm.Labels["example.com/touched"] = "true"
		require.NoError(c.t, k8s.Update(ctx, cm))
	}
	return c.Client.Delete(ctx, obj, opts...)
}

func TestRetentionKeepsAConfigMapChangedSinceItWasListedRET1(t *testing.T) {
	clean(t)
	t.Cleanup(func() { clean(t) })
	uid := createRuntime(t, nil, aicrv1alpha1.ClusterRuntimeStatus{CandidatePlanDigest: digest(candidatePlan)})
	for i := 1; i <= 7; i++ { // seven superseded plans: 1 and 2 go
		storePlan(t, i, uid, fmt.Sprintf("recipe-s%d", i), "", fmt.Sprintf("values-s%d", i))
	}
	storePlan(t, candidatePlan, uid, "recipe-c", "", "values-c")

	r, _ := newReconciler(t, &touchingClient{Client: k8s, t: t, name: planName(1)})
	res := pass(t, r)
	assert.Less(t, res.RequeueAfter, time.Hour, "a pass that found a change runs again soon")
	assert.Contains(t, configMaps(t, operatorNamespace), planName(1), "the precondition kept the changed plan")
	assert.Contains(t, configMaps(t, operatorNamespace), recipeCM("recipe-s1"), "and what it references while it stays")
	assert.NotContains(t, configMaps(t, operatorNamespace), planName(2), "the other doomed plan went")

	pass(t, r)
	assert.NotContains(t, configMaps(t, operatorNamespace), planName(1), "the next pass judges the plan as it is now")
	assert.NotContains(t, configMaps(t, operatorNamespace), recipeCM("recipe-s1"))
}

func TestRetentionTouchesNothingUnlabelledOrElsewhereRET1RET3(t *testing.T) {
	clean(t)
	t.Cleanup(func() { clean(t) })
	uid := createRuntime(t, nil, aicrv1alpha1.ClusterRuntimeStatus{})
	// Unreferenced and old, but not the operator's: no labels, no managed-by label, a role
	// retention does not handle, another namespace.
	storeConfigMap(t, operatorNamespace, "aicr-values-unlabelled", nil, nil, nil)
	storeConfigMap(t, operatorNamespace, "aicr-values-foreign", map[string]string{aicrv1alpha1.LabelRole: aicrv1alpha1.RoleValues}, nil, nil)
	storeConfigMap(t, operatorNamespace, "aicr-evidence-1", managed("evidence"), nil, nil)
	storeConfigMap(t, operatorNamespace, planName(1)+"-copy", managed(aicrv1alpha1.RolePlan), nil, nil)
	storeConfigMap(t, otherNamespace, "aicr-values-elsewhere", managed(aicrv1alpha1.RoleValues), nil, nil)
	storeConfigMap(t, otherNamespace, planName(2), managed(aicrv1alpha1.RolePlan), nil, nil)
	for i := 3; i <= 9; i++ { // seven superseded plans: two of them go, with their recipe and values
		storePlan(t, i, uid, fmt.Sprintf("recipe-s%d", i), "", fmt.Sprintf("values-s%d", i))
	}

	r, _ := newReconciler(t, k8s)
	pass(t, r)
	want := []string{"aicr-evidence-1", "aicr-values-foreign", "aicr-values-unlabelled", planName(1) + "-copy"}
	for i := 5; i <= 9; i++ {
		want = append(want, planName(i), recipeCM(fmt.Sprintf("recipe-s%d", i)), valuesCM(fmt.Sprintf("values-s%d", i)))
	}
	sort.Strings(want)
	assert.Equal(t, want, configMaps(t, operatorNamespace))
	assert.Equal(t, []string{planName(2), "aicr-values-elsewhere"}, configMaps(t, otherNamespace))
}

func TestRetentionWaitsForTheRuntimeRET1(t *testing.T) {
	clean(t)
	t.Cleanup(func() { clean(t) })
	for i := 1; i <= 7; i++ {
		storePlan(t, i, runtimeUIDB, fmt.Sprintf("recipe-s%d", i), "", fmt.Sprintf("values-s%d", i))
	}
	r, _ := newReconciler(t, k8s)
	assert.Zero(t, pass(t, r), "without a ClusterRuntime nothing is deleted and nothing requeued")
	assert.Len(t, configMaps(t, operatorNamespace), 21)
}

// TestRetentionListsUnderThePlanWritersLock: a pass reads what the plans reference and deletes
// the rest while it holds planstore.Writes, the lock the resolver's and the runtime
// controller's plan writers hold while they reuse a recipe or values ConfigMap and write the
// plan that references it, so it never deletes one a plan is about to reference.
func TestRetentionListsUnderThePlanWritersLock(t *testing.T) {
	clean(t)
	t.Cleanup(func() { clean(t) })
	createRuntime(t, nil, aicrv1alpha1.ClusterRuntimeStatus{})
	reader := &lockCheckingReader{Reader: k8s}
	r, err := retention.New(k8s, reader, record.NewFakeRecorder(10), operatorNamespace, time.Hour, shared.Release{}, sealtest.New())
	require.NoError(t, err)
	pass(t, r)
	require.Positive(t, reader.lists.Load(), "the pass lists the stored ConfigMaps")
	assert.Zero(t, reader.unguarded.Load(), "every list of a pass ran under planstore.Writes")
}

// lockCheckingReader counts its Lists and those made while planstore.Writes was free.
type lockCheckingReader struct {
	client.Reader
	lists, unguarded atomic.Int64
}

func (r *lockCheckingReader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	r.lists.Add(1)
	if planstore.Writes.TryLock() {
		r.unguarded.Add(1)
		planstore.Writes.Unlock()
	}
	return r.Reader.List(ctx, list, opts...)
}
