package retention

import (
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// Kinds of the objects retention deletes: a RuntimeRollout, or a ConfigMap by its role.
const kindRollout = "rollout"

// doomedObject is one object retention deletes, the metadata its preconditions come from and
// the rule that lets it go.
type doomedObject struct {
	kind string
	meta metav1.ObjectMeta
	rule string
}

// retentionDecision is what RET-1..3 no longer keep: the rollouts and plans, and what only they
// referenced (recipes, values, kept results), deleted only once they are gone.
type retentionDecision struct {
	owners, dependents []doomedObject
}

func decideRetention(cr *aicrv1alpha1.ClusterRuntime, rel shared.Release, rollouts []aicrv1alpha1.RuntimeRollout, stored storedObjects,
	seals ports.Sealer) retentionDecision {
	sealed := sealedSuccesses(seals, rollouts)
	active := activeRollouts(rollouts, sealed)
	owners, kept := doomedRollouts(rollouts, active, sealed)
	current := findCurrentResolution(cr, rel, stored.plans)
	plans, retained := doomedPlans(stored.plans, plansToKeep(cr, rollouts, active), current.bundle)
	return retentionDecision{owners: append(owners, plans...), dependents: doomedDependents(current, retained, kept, stored.others)}
}

// sealedSuccesses names the rollouts labelled Succeeded under the operator's seal
// (shared.SealedSuccess): retention counts only these as successes.
func sealedSuccesses(seals ports.Sealer, rollouts []aicrv1alpha1.RuntimeRollout) map[string]bool {
	out := map[string]bool{}
	for i := range rollouts {
		if shared.SealedSuccess(seals, &rollouts[i]) {
			out[rollouts[i].Name] = true
		}
	}
	return out
}

// activeRollouts returns, per runtime UID, the rollout the runtime derives its active plan
// from: the newest sealed Succeeded one in the runtime controller's order (shared.OlderRollout,
// RO-13). A Succeeded label without the operator's seal is not a success the runtime trusts
// without judging it again, so it does not displace the sealed one.
func activeRollouts(rollouts []aicrv1alpha1.RuntimeRollout, sealed map[string]bool) map[string]*aicrv1alpha1.RuntimeRollout {
	byUID := map[string][]*aicrv1alpha1.RuntimeRollout{}
	for i := range rollouts {
		byUID[rollouts[i].Spec.RuntimeUID] = append(byUID[rollouts[i].Spec.RuntimeUID], &rollouts[i])
	}
	out := map[string]*aicrv1alpha1.RuntimeRollout{}
	for uid, rs := range byUID {
		sort.SliceStable(rs, func(i, j int) bool { return shared.OlderRollout(rs[i], rs[j]) })
		for _, ro := range rs {
			if sealed[ro.Name] {
				out[uid] = ro
			}
		}
	}
	return out
}

// doomedRollouts applies RET-2 and returns the doomed rollouts and the kept ones.
func doomedRollouts(rollouts []aicrv1alpha1.RuntimeRollout, active map[string]*aicrv1alpha1.RuntimeRollout,
	sealed map[string]bool) ([]doomedObject, []*aicrv1alpha1.RuntimeRollout) {
	records := make([]domain.RolloutRecord, 0, len(rollouts))
	for i := range rollouts {
		ro := &rollouts[i]
		records = append(records, domain.RolloutRecord{
			Name: ro.Name, RuntimeUID: ro.Spec.RuntimeUID, Sequence: shared.RolloutSequence(ro), CreatedAt: ro.CreationTimestamp.Time,
			Outcome: domain.Phase(ro.Labels[aicrv1alpha1.LabelOutcome]), Sealed: sealed[ro.Name], Active: active[ro.Spec.RuntimeUID] == ro,
		})
	}
	gone := nameSet(domain.RolloutsToDelete(records))
	var doomed []doomedObject
	var kept []*aicrv1alpha1.RuntimeRollout
	for i := range rollouts {
		if gone[rollouts[i].Name] {
			doomed = append(doomed, doomedObject{kind: kindRollout, meta: rollouts[i].ObjectMeta, rule: "RET-2"})
		} else {
			kept = append(kept, &rollouts[i])
		}
	}
	return doomed, kept
}

// keptPlans holds the names of the plan ConfigMaps RET-1 keeps whatever their age.
type keptPlans struct {
	active, candidate, pinned, inUse map[string]bool
}

// plansToKeep names the active plan (in status and as derived from the runtime's newest
// Succeeded rollout), the candidate, the pinned plan, and the plans in use: the target and
// both plans of every rollout without an outcome.
func plansToKeep(cr *aicrv1alpha1.ClusterRuntime, rollouts []aicrv1alpha1.RuntimeRollout,
	active map[string]*aicrv1alpha1.RuntimeRollout) keptPlans {
	k := keptPlans{
		active:    planConfigMapNames(cr.Status.ActivePlanDigest),
		candidate: planConfigMapNames(cr.Status.CandidatePlanDigest),
		pinned:    planConfigMapNames(cr.Spec.Selection.PinnedPlanDigest),
		inUse:     planConfigMapNames(cr.Status.TargetPlanDigest, shared.TargetPlanDigest(cr)),
	}
	if ro := active[string(cr.UID)]; ro != nil {
		addPlanConfigMapNames(k.active, ro.Spec.ToPlanDigest)
	}
	for i := range rollouts {
		if rollouts[i].Labels[aicrv1alpha1.LabelOutcome] == "" {
			addPlanConfigMapNames(k.inUse, rollouts[i].Spec.FromPlanDigest, rollouts[i].Spec.ToPlanDigest)
		}
	}
	return k
}

// doomedPlans applies RET-1 and returns the doomed plans and the retained ones. The plan the
// resolver recorded for the bundle Job of the current resolution is in use: its next
// reconcile reads it.
func doomedPlans(plans []planstore.Listed, keep keptPlans, bundleJob string) ([]doomedObject, []planstore.Listed) {
	records := make([]domain.PlanRecord, 0, len(plans))
	for _, p := range plans {
		n := p.Meta.Name
		records = append(records, domain.PlanRecord{
			Name: n, Digest: p.Meta.Annotations[aicrv1alpha1.AnnotationPlanDigest], CreatedAt: p.Meta.CreationTimestamp.Time,
			Active: keep.active[n], Candidate: keep.candidate[n], Pinned: keep.pinned[n],
			InUse: keep.inUse[n] || (bundleJob != "" && p.Meta.Labels[aicrv1alpha1.LabelResolvedBy] == bundleJob),
		})
	}
	gone := nameSet(domain.PlansToDelete(records))
	var doomed []doomedObject
	var retained []planstore.Listed
	for _, p := range plans {
		if gone[p.Meta.Name] {
			doomed = append(doomed, doomedObject{kind: aicrv1alpha1.RolePlan, meta: p.Meta, rule: "RET-1"})
		} else {
			retained = append(retained, p)
		}
	}
	return doomed, retained
}

// currentResolution names the Jobs of the runtime's current resolution as the resolver derives
// them: its next reconcile reads their kept results and the plan recorded for the bundle Job.
type currentResolution struct {
	snapshot, recipe, bundle string
}

func findCurrentResolution(cr *aicrv1alpha1.ClusterRuntime, rel shared.Release, plans []planstore.Listed) currentResolution {
	current := currentResolution{snapshot: shared.SnapshotJob(cr, rel)}
	config, err := shared.AICRConfig(cr)
	if err != nil {
		return current
	}
	current.recipe = shared.RecipeJob(cr, rel, current.snapshot, config, inheritedPlan(cr, rel, plans))
	current.bundle = shared.BundleJob(string(cr.UID), current.recipe, shared.BundleArgs(cr))
	return current
}

// inheritedPlan is shared.InheritFrom over the stored plans: the active plan's digest when
// another AICR release rendered it, as the resolver decides it.
func inheritedPlan(cr *aicrv1alpha1.ClusterRuntime, rel shared.Release, plans []planstore.Listed) string {
	name, err := configdoc.PlanConfigMapName(cr.Status.ActivePlanDigest)
	if err != nil {
		return ""
	}
	for _, p := range plans {
		if p.Meta.Name == name {
			return shared.InheritFrom(p.Doc, cr.Status.ActivePlanDigest, rel)
		}
	}
	return ""
}

func planConfigMapNames(digests ...string) map[string]bool {
	out := map[string]bool{}
	addPlanConfigMapNames(out, digests...)
	return out
}

// addPlanConfigMapNames adds the plan ConfigMap names of digests; an empty or malformed digest names none.
func addPlanConfigMapNames(names map[string]bool, digests ...string) {
	for _, d := range digests {
		if name, err := configdoc.PlanConfigMapName(d); err == nil {
			names[name] = true
		}
	}
}

func nameSet(names []string) map[string]bool {
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[n] = true
	}
	return out
}
