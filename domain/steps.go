package domain

import (
	"errors"
	"fmt"
	"sort"

	"github.com/NVIDIA/aicr/ports"
)

// Step-planning errors. They describe a plan graph the operator cannot order.
var (
	// ErrDependencyCycle reports a cycle in a plan's dependency graph.
	ErrDependencyCycle = errors.New("dependency cycle")
	// ErrUnknownDependency reports a dependency on a release or component the plan does not contain.
	ErrUnknownDependency = errors.New("unknown dependency")
)

// Operation is what a step does to one release (RO-2).
type Operation string

const (
	// OpInstall creates a release the active plan does not have.
	OpInstall Operation = "Install"
	// OpUpgrade changes chart or values of a release the active plan has.
	OpUpgrade Operation = "Upgrade"
	// OpVerify moves an unchanged release to the target plan's annotations and checks it is ready.
	OpVerify Operation = "Verify"
	// OpRemove deletes a release the target plan no longer has.
	OpRemove Operation = "Remove"
	// OpAdopt takes over a release an earlier runtime created (spec.adoption), then applies the target.
	OpAdopt Operation = "Adopt"
)

// Step is one step of a rollout.
type Step struct {
	Release   ports.ReleaseRef `json:"release"`
	Component string           `json:"component,omitempty"`
	Operation Operation        `json:"operation"`
	// Assessment is AICR upgrade-check's verdict for the step's component ("" when none applies).
	Assessment ports.UpgradeVerdict `json:"assessment,omitempty"`
	// ChangesCRDs reports that the step changes CustomResourceDefinitions.
	ChangesCRDs bool `json:"changesCRDs"`
	// AcknowledgeBeforeApply reports that the step waits, before its apply, for an approver to
	// acknowledge the transition record's precondition and steps (RO-9), or the DRA kubelet
	// plugin's restart after a GPU Operator upgrade.
	AcknowledgeBeforeApply bool `json:"acknowledgeBeforeApply,omitempty"`
	// Reasons say why an Upgrade is needed.
	Reasons []string `json:"reasons,omitempty"`
	// ValuesChange says why an Upgrade's values change needs an approver whatever AICR's
	// verdict ("values changed by overrides: gpu-operator:driver.repository"), or why an
	// Install does ("installed with overrides: gpu-operator:driver.version"); "" when its
	// values did not change, the verdict covers the change, or no override reaches an
	// Install (see ApprovalRequired).
	ValuesChange string `json:"valuesChange,omitempty"`
	// Disruption says why the step may disrupt the accelerated nodes ("" when it cannot): a
	// disruptive step starts only in an open change window, while no protected workload runs
	// on those nodes, unless an approver lets it go (ChangePolicy, DisruptionOverride).
	Disruption string `json:"disruption,omitempty"`
}

// TransitionInput is what PlanTransition compares.
type TransitionInput struct {
	// Active is the plan rolled out now; nil for an initial install.
	Active *Plan
	// Target is the plan to roll out.
	Target *Plan
	// Assessments are upgrade-check's rows (by component); nil when no check ran.
	Assessments []ports.ComponentAssessment
	// Adoptable lists releases live under the adoption runtime UID (spec.adoption).
	Adoptable map[ports.ReleaseRef]bool
	// ActiveRenderFlags are the `aicr bundle` flags the active plan was rendered with: its
	// plan document's renderFlags, whose --set-json component:path=value flags are the
	// runtime's spec.overrides and whose node selector and toleration flags its placement.
	// nil means the plan does not record them (a rebuilt plan): every values change of an
	// Upgrade then needs an approver. An empty non-nil list records that no flag was given.
	ActiveRenderFlags []string
	// TargetRenderFlags are the target plan's renderFlags, likewise. Its overrides make an
	// Install step of a release they may reach need an approver.
	TargetRenderFlags []string
	// WaiveInitialInstallOverrides lets an initial install roll out unattended with overrides
	// (the runtime's approvalPolicy.initialInstallOverrides Waived).
	WaiveInitialInstallOverrides bool
	// Disruption decides which steps may disrupt the accelerated nodes.
	Disruption DisruptionRules
}

// Transition is the planned change from Active to Target.
type Transition struct {
	Steps []Step
	// ApprovalRequired is decided by ApprovalRequired.
	ApprovalRequired bool
	// Blocked is set when a step's assessment is blocked (TransitionBlocked).
	Blocked *Stall
}

// PlanTransition computes the steps from in.Active to in.Target in the order
// of RO-7: Remove steps first in reverse order of the active plan, then
// Install / Upgrade / Verify / Adopt in the target plan's dependency order
// (stable: ties keep plan order). Releases are keyed by (namespace, ID).
func PlanTransition(in TransitionInput) (Transition, error) {
	order, err := topoOrder(in.Target.Releases)
	if err != nil {
		return Transition{}, err
	}
	verdicts := make(map[string]ports.ComponentAssessment, len(in.Assessments))
	for _, a := range in.Assessments {
		verdicts[a.Component] = a
	}
	active := map[ports.ReleaseRef]Release{}
	var steps []Step
	if in.Active != nil {
		inTarget := make(map[ports.ReleaseRef]bool, len(in.Target.Releases))
		for _, r := range in.Target.Releases {
			inTarget[r.Ref()] = true
		}
		for i := len(in.Active.Releases) - 1; i >= 0; i-- {
			r := in.Active.Releases[i]
			active[r.Ref()] = r
			if !inTarget[r.Ref()] {
				steps = append(steps, Step{Release: r.Ref(), Component: r.Component, Operation: OpRemove})
			}
		}
	}
	values := valuesJudge{
		diff:    newRenderDiff(in.ActiveRenderFlags, in.TargetRenderFlags, activeReleases(in.Active), in.Target.Releases),
		version: versionChanges(active, in.Target.Releases),
	}
	if in.Active != nil || !in.WaiveInitialInstallOverrides {
		values.install = newRenderDiff([]string{}, in.TargetRenderFlags, in.Target.Releases)
	}
	for _, i := range order {
		steps = append(steps, targetStep(in.Target.Releases[i], active, in.Adoptable, verdicts, values))
	}
	markDisruptive(steps, in.Target, in.Active, in.Disruption)
	markDRARestart(steps)
	t := Transition{Steps: steps}
	for _, s := range steps {
		if s.Assessment == ports.VerdictBlocked {
			t.Blocked = stallf(StallTransitionBlocked, fmt.Sprintf(
				"AICR upgrade-check blocks %s (%s)", s.Release.ID, verdicts[s.Component].Reason))
			break
		}
	}
	t.ApprovalRequired = ApprovalRequired(in.Active == nil, steps)
	return t, nil
}

func targetStep(r Release, active map[ports.ReleaseRef]Release, adoptable map[ports.ReleaseRef]bool,
	verdicts map[string]ports.ComponentAssessment, values valuesJudge) Step {
	s := Step{Release: r.Ref(), Component: r.Component}
	old, ok := active[r.Ref()]
	switch {
	case !ok && adoptable[r.Ref()]:
		s.Operation = OpAdopt
	case !ok:
		s.Operation = OpInstall
		s.ValuesChange = values.installChange(r.Component)
	default:
		s.Reasons = upgradeReasons(old, r)
		s.Operation = OpVerify
		if len(s.Reasons) > 0 {
			s.Operation = OpUpgrade
			s.ValuesChange = values.diff.valuesChange(old, r, values.version[r.Component])
		}
	}
	if a, ok := verdicts[r.Component]; ok && s.Operation == OpUpgrade {
		s.Assessment = a.Verdict
		s.ChangesCRDs = a.ChangesCRDs
		s.AcknowledgeBeforeApply = a.RecordedSteps && a.Verdict == ports.VerdictManual
	}
	return s
}

// upgradeReasons compares two releases of the same identity (FORMAT.md section 7).
func upgradeReasons(old, cur Release) []string {
	var why []string
	if old.Chart.Repository != cur.Chart.Repository {
		why = append(why, "chart.repoURL changed")
	}
	if old.Chart.Name != cur.Chart.Name {
		why = append(why, "chart.name changed")
	}
	if old.Chart.Version != cur.Chart.Version {
		why = append(why, fmt.Sprintf("chart.version: %s -> %s", old.Chart.Version, cur.Chart.Version))
	}
	if old.Chart.ManifestDigest != cur.Chart.ManifestDigest {
		why = append(why, "chart manifest digest changed")
	}
	if old.Kind != cur.Kind {
		why = append(why, fmt.Sprintf("kind: %s -> %s", old.Kind, cur.Kind))
	}
	if old.ContentDigest != cur.ContentDigest {
		why = append(why, "local chart content changed")
	}
	if old.Policy != cur.Policy {
		why = append(why, "engine policy changed")
	}
	od, err1 := valuesDigest(old)
	cd, err2 := valuesDigest(cur)
	if od != cd || err1 != nil || err2 != nil {
		why = append(why, "values changed")
	}
	return why
}

// valuesDigest returns the release's cached values digest (set by
// BuildPlan), computing it for releases built another way.
func valuesDigest(r Release) (string, error) {
	if r.ValuesDigest != "" {
		return r.ValuesDigest, nil
	}
	return Digest(r.Values)
}

// topoOrder returns release indexes in dependency order, keeping plan order
// among releases that are ready at the same time (Kahn's algorithm with the
// ready set ordered by plan index).
func topoOrder(rels []Release) ([]int, error) {
	index := make(map[string]int, len(rels))
	for i, r := range rels {
		index[r.ID] = i
	}
	indeg := make([]int, len(rels))
	dependents := make([][]int, len(rels))
	for i, r := range rels {
		for _, d := range r.DependsOn {
			j, ok := index[d]
			if !ok {
				return nil, fmt.Errorf("release %s depends on %q: %w", r.ID, d, ErrUnknownDependency)
			}
			indeg[i]++
			dependents[j] = append(dependents[j], i)
		}
	}
	ready := make([]int, 0, len(rels))
	for i := range rels {
		if indeg[i] == 0 {
			ready = append(ready, i)
		}
	}
	order := make([]int, 0, len(rels))
	for len(ready) > 0 {
		n := ready[0]
		ready = ready[1:]
		order = append(order, n)
		for _, m := range dependents[n] {
			if indeg[m]--; indeg[m] == 0 {
				ready = insertSorted(ready, m)
			}
		}
	}
	if len(order) != len(rels) {
		var stuck []string
		for i := range rels {
			if indeg[i] > 0 {
				stuck = append(stuck, rels[i].ID)
			}
		}
		return nil, fmt.Errorf("releases %v: %w", stuck, ErrDependencyCycle)
	}
	return order, nil
}

func insertSorted(s []int, v int) []int {
	i := sort.SearchInts(s, v)
	s = append(s, 0)
	copy(s[i+1:], s[i:])
	s[i] = v
	return s
}
