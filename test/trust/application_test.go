package trust_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/argocd"
	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/clock"
	"github.com/NVIDIA/aicr/adapters/kube/wellknown"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/mocks"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/argocdsim"
)

// appEditorUser may create, change and delete Argo CD Applications in the engine namespace,
// as an Argo CD administrator or a GitOps team may, and nothing of the operator's.
const appEditorUser = "app-editor-ada"

// driftEpoch is when the rollouts of the Application attacks are created; Argo CD syncs a
// minute later.
var driftEpoch = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// engineRegistry is the runtime registry the chart points the operator's Applications at.
const engineRegistry = "registry.example.com/aicr"

var (
	argoSchemeOnce sync.Once
	argoScheme     = runtime.NewScheme()
)

// argoClientAs is a client of Argo CD's kinds acting as user with groups.
func argoClientAs(t *testing.T, user string, groups ...string) client.Client {
	t.Helper()
	argoSchemeOnce.Do(func() { require.NoError(t, argocd.AddToScheme(argoScheme)) })
	c, err := controlPlane.ClientAs(argoScheme, user, groups...)
	require.NoError(t, err)
	return c
}

// operatorEngine is the Argo CD engine as the operator builds it, acting as its
// ServiceAccount: writes, reads and the uncached list of every Application all go through
// the operator's own RBAC.
func operatorEngine(t *testing.T) *argocd.Engine {
	t.Helper()
	c := argoClientAs(t, operatorUser, "system:serviceaccounts", "system:serviceaccounts:"+operatorNS)
	return argocd.NewEngine(c, nil, argocd.Config{Registry: engineRegistry})
}

// argoSim plays Argo CD's application controller, as its own identity: it reports an
// Application synced and healthy at whatever its spec asks for.
func argoSim(t *testing.T) *argocdsim.Sim {
	t.Helper()
	c := argoClientAs(t, argoCDUser, "system:serviceaccounts", "system:serviceaccounts:argocd")
	return argocdsim.New(c, argocd.DefaultNamespace, clock.NewFake(driftEpoch.Add(time.Minute)))
}

// driftPlan is a one-release plan of runtime uid, gpu-operator at driver version, its chart
// pinned in the runtime registry.
func driftPlan(t *testing.T, uid, id, driver string) *domain.Plan {
	t.Helper()
	p, err := domain.BuildPlan(domain.PlanInput{RuntimeUID: uid, Bundle: ports.Bundle{Layout: ports.LayoutV1, AICRVersion: aicrVersion,
		Releases: []ports.BundleRelease{{Name: id, Component: "gpu-operator", Namespace: components[0], Kind: ports.KindUpstream,
			Chart:  ports.ChartSource{Repository: "https://helm.ngc.nvidia.com/nvidia", Name: "gpu-operator", Version: "v25.10.1"},
			Values: map[string]any{"driver": map[string]any{"version": driver}}}}}})
	require.NoError(t, err)
	for i := range p.Releases {
		p.Releases[i].Chart.ManifestDigest = "sha256:" + fmt.Sprintf("%064x", i+7)
	}
	return p
}

// driftRollout is an approved rollout of uid toward target (from active, "" for an install).
func driftRollout(t *testing.T, uid string, active, target *domain.Plan, created time.Time) domain.RolloutSpec {
	t.Helper()
	tr, err := domain.PlanTransition(domain.TransitionInput{Active: active, Target: target})
	require.NoError(t, err)
	s := domain.RolloutSpec{Name: "rollout-" + uid[:16] + "-1", RuntimeUID: uid, ToPlanDigest: target.Digest, CreatedAt: created,
		Deadline: created.Add(24 * time.Hour), Steps: tr.Steps, ApprovalRequired: true,
		Approval: domain.Approval{ApprovedBy: approverUser, ExpiresAt: created.Add(2 * time.Hour), Reason: "window"}}
	if active != nil {
		s.FromPlanDigest = active.Digest
	}
	return s
}

// advanceOnce advances a rollout of spec in status st once at now through the real engine.
func advanceOnce(t *testing.T, p domain.Ports, spec domain.RolloutSpec, st domain.RolloutStatus, target *domain.Plan) domain.Outcome {
	t.Helper()
	r, err := domain.RolloutFromStatus(spec, st)
	require.NoError(t, err)
	out, err := r.Advance(context.Background(), p, domain.Environment{RuntimeUID: spec.RuntimeUID,
		TargetPlanDigest: target.Digest, Target: target, ValidationEnabled: true, ValidationRequired: true,
		ValidationNamespace: validationNS, ValidationRecipe: []byte(`{"kind":"RecipeResult"}`), BundleDigest: "sha256:b0d1e5"})
	require.NoError(t, err)
	return out
}

// editApplication merge-patches the Application of ref as the Application editor.
func editApplication(t *testing.T, ref ports.ReleaseRef, patch string) {
	t.Helper()
	app := &argov1.Application{ObjectMeta: metav1.ObjectMeta{Namespace: argocd.DefaultNamespace, Name: argocd.ApplicationName(ref)}}
	require.NoError(t, argoClientAs(t, appEditorUser).Patch(context.Background(), app, client.RawPatch(types.MergePatchType, []byte(patch))))
}

// deleteApplication removes the Application of name once the test ends.
func deleteApplication(t *testing.T, name string) {
	t.Helper()
	t.Cleanup(func() {
		app := &argov1.Application{ObjectMeta: metav1.ObjectMeta{Namespace: argocd.DefaultNamespace, Name: name}}
		require.NoError(t, client.IgnoreNotFound(argoClientAs(t, appEditorUser).Delete(context.Background(), app)))
	})
}

// passedRun is a validation run that passed one check.
func passedRun(r *mocks.MockJobRunnerMockRecorder, run string) {
	report := `{"reportFormat":"CTRF","results":{"summary":{"tests":1,"passed":1,"failed":0,"other":0},` +
		`"tests":[{"name":"operator-health","status":"passed"}]}}`
	r.Status(gomock.Any(), ports.JobRef{Name: run}).Return(ports.JobStatus{State: ports.JobSucceeded}, nil)
	r.Output(gomock.Any(), ports.JobRef{Name: run}).Return(fstest.MapFS{ports.JobArtifactFile: {Data: []byte(report)}}, nil)
}

// TestAttack_HandEditedApplicationIsNotReadyOrValidated: an Application editor adds a Helm
// parameter to an Application the operator wrote, and Argo CD syncs the edit: synced and
// healthy, its annotations still the operator's. The step in flight is not ready: it writes the
// plan's spec again, which removes the parameter. Edited again while validation runs, the run
// that passed writes no evidence: the rollout goes back to the step.
func TestAttack_HandEditedApplicationIsNotReadyOrValidated(t *testing.T) {
	ctx := context.Background()
	uid := "aa11bb22-0000-4000-8000-000000000001"
	target := driftPlan(t, uid, "edited-gpu", "580.105.08")
	ref := target.Releases[0].Ref()
	deleteApplication(t, argocd.ApplicationName(ref))
	created := driftEpoch
	spec := driftRollout(t, uid, nil, target, created)
	ctrl := gomock.NewController(t)
	clk := mocks.NewMockClock(ctrl)
	clk.EXPECT().Now().Return(created.Add(time.Minute)).AnyTimes()
	jobs, reg := mocks.NewMockJobRunner(ctrl), mocks.NewMockRegistry(ctrl)
	p := domain.Ports{Engine: operatorEngine(t), Clock: clk, Jobs: jobs, Registry: reg}
	sim := argoSim(t)

	out := advanceOnce(t, p, spec, domain.RolloutStatus{Phase: domain.PhaseProgressing}, target)
	require.True(t, out.Mutated, "the install step writes the Application")
	editApplication(t, ref, `{"spec":{"source":{"helm":{"parameters":[{"name":"driver.version","value":"1.0.0"}]}}}}`)
	_, err := sim.Settle(ctx, ref)
	require.NoError(t, err)
	st, err := p.Engine.Status(ctx, ref)
	require.NoError(t, err)
	require.True(t, st.Ready(), "Argo CD reports the edited Application synced and healthy")

	out = advanceOnce(t, p, spec, out.Status, target)
	assert.Equal(t, 0, out.Status.Step, "the edited Application is not the step's: it is not ready")
	assert.True(t, out.Mutated, "the step writes the plan's spec again")
	app := &argov1.Application{}
	require.NoError(t, k8sArgo(t).Get(ctx, client.ObjectKey{Namespace: argocd.DefaultNamespace, Name: argocd.ApplicationName(ref)}, app))
	assert.NotContains(t, app.Spec.Source.Helm.Unmodeled, "parameters", "the write removed the hand edit")

	_, err = sim.Settle(ctx, ref)
	require.NoError(t, err)
	out = advanceOnce(t, p, spec, out.Status, target)
	require.Equal(t, 1, out.Status.Step, "the plan's spec, synced and healthy, is ready")
	out = advanceOnce(t, p, spec, out.Status, target)
	require.Equal(t, domain.PhaseValidating, out.Phase())

	editApplication(t, ref, `{"spec":{"source":{"helm":{"parameters":[{"name":"driver.version","value":"1.0.0"}]}}}}`)
	_, err = sim.Settle(ctx, ref)
	require.NoError(t, err)
	passedRun(jobs.EXPECT(), out.Status.ValidationRun)
	out = advanceOnce(t, p, spec, out.Status, target)
	assert.Equal(t, domain.PhaseProgressing, out.Phase(), "back to the step, no evidence (no PushEvidence is expected)")
	assert.Empty(t, out.EvidenceDigest)
}

// k8sArgo is the administrator's client of Argo CD's kinds, for reading what happened.
func k8sArgo(t *testing.T) client.Client {
	t.Helper()
	argoSchemeOnce.Do(func() { require.NoError(t, argocd.AddToScheme(argoScheme)) })
	c, err := client.New(controlPlane.Config, client.Options{Scheme: argoScheme})
	require.NoError(t, err)
	return c
}

// TestAttack_ForgedOwnershipDoesNotSkipAStep: an Application editor writes the annotations of
// the approved rollout's target plan and name onto the Application of the active plan, and
// Argo CD reports it synced and healthy. Under the revoked approval the rollout ends Revoked
// before the step; under a valid one the step writes the target's spec: it is never skipped.
func TestAttack_ForgedOwnershipDoesNotSkipAStep(t *testing.T) {
	ctx := context.Background()
	uid := "aa11bb22-0000-4000-8000-000000000002"
	active := driftPlan(t, uid, "forged-gpu", "570.0.0")
	target := driftPlan(t, uid, "forged-gpu", "580.105.08")
	ref := target.Releases[0].Ref()
	deleteApplication(t, argocd.ApplicationName(ref))
	engine := operatorEngine(t)
	require.NoError(t, engine.Apply(ctx, active.ReleaseSpec(ref, ports.ReleaseOwner{RuntimeUID: uid, PlanDigest: active.Digest})))
	sim := argoSim(t)
	created := driftEpoch
	spec := driftRollout(t, uid, active, target, created)
	editApplication(t, ref, fmt.Sprintf(`{"metadata":{"annotations":{%q:%q,%q:%q}}}`,
		wellknown.AnnotationPlanDigest, target.Digest, argocd.AnnotationRollout, spec.Name))
	_, err := sim.Settle(ctx, ref)
	require.NoError(t, err)
	st, err := engine.Status(ctx, ref)
	require.NoError(t, err)
	require.Equal(t, ports.ReleaseOwner{RuntimeUID: uid, PlanDigest: target.Digest, Rollout: spec.Name}, st.Owner,
		"the annotations claim the step made")

	ctrl := gomock.NewController(t)
	clk := mocks.NewMockClock(ctrl)
	clk.EXPECT().Now().Return(created.Add(3 * time.Hour)).AnyTimes()
	revoked := spec
	revoked.Approval.RevokedBy, revoked.Approval.RevokedAt, revoked.Approval.RevokeReason = approverUser, created.Add(time.Hour), "job"
	forgedStart := domain.RolloutStatus{Phase: domain.PhaseProgressing, StepStartedAt: created.Add(30 * time.Minute)}
	out := advanceOnce(t, domain.Ports{Engine: engine, Clock: clk}, revoked, forgedStart, target)
	assert.Equal(t, domain.PhaseRevoked, out.Phase(), "the step is not made: a revoked approval ends the rollout before it")
	assert.False(t, out.Mutated)
	planned, err := engine.SpecDigest(active.ReleaseSpec(ref, ports.ReleaseOwner{}))
	require.NoError(t, err)
	st, err = engine.Status(ctx, ref)
	require.NoError(t, err)
	assert.True(t, st.Matches(planned), "the Application still asks for the active plan's spec")

	valid := domain.Ports{Engine: engine, Clock: mocks.NewMockClock(ctrl)}
	valid.Clock.(*mocks.MockClock).EXPECT().Now().Return(created.Add(time.Minute)).AnyTimes()
	out = advanceOnce(t, valid, spec, domain.RolloutStatus{Phase: domain.PhaseProgressing}, target)
	assert.True(t, out.Mutated, "under a valid approval the step is made, not skipped")
	assert.Equal(t, 0, out.Status.Step)
}

// TestAttack_ApplicationOutOfBandInTheAppProject: an Application editor creates an
// Application in the operator's AppProject that no plan names, without the operator's labels.
// The operator, through its own RBAC, lists it as unplanned and the runtime reports it.
func TestAttack_ApplicationOutOfBandInTheAppProject(t *testing.T) {
	ctx := context.Background()
	name := components[0] + ".out-of-band"
	deleteApplication(t, name)
	app := &argov1.Application{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: argocd.DefaultNamespace},
		Spec: argov1.ApplicationSpec{Project: argocd.DefaultProject, Destination: argov1.ApplicationDestination{
			Server: argocd.InClusterServer, Namespace: components[0]},
			Source: &argov1.ApplicationSource{RepoURL: "oci://" + engineRegistry + "/charts/gpu-operator", Path: ".",
				TargetRevision: "sha256:" + fmt.Sprintf("%064x", 9)}}}
	require.NoError(t, argoClientAs(t, appEditorUser).Create(ctx, app), "an Application editor may create it")

	got, err := operatorEngine(t).Unplanned(ctx, nil)
	require.NoError(t, err)
	require.Contains(t, got, name)
	c := domain.UnplannedCondition(got)
	assert.Equal(t, domain.ConditionFalse, c.Status)
	assert.Equal(t, domain.ReasonUnplannedEngineObjects, c.Reason)
	assert.Contains(t, c.Message, name)
}
