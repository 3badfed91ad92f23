package domain_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/mocks"
	"github.com/NVIDIA/aicr/ports"
)

const (
	uid         = "6f1c9d2e-1111-4a5b-9c3d-000000000001"
	rolloutName = "rollout-0123456789abcdef-1"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// recorders are the gomock recorders of every port.
type recorders struct {
	engine *mocks.MockDeploymentEngineMockRecorder
	jobs   *mocks.MockJobRunnerMockRecorder
	reg    *mocks.MockRegistryMockRecorder
	clock  *mocks.MockClockMockRecorder
	work   *mocks.MockWorkloadFinderMockRecorder
}

func newPorts(t *testing.T) (domain.Ports, recorders) {
	t.Helper()
	ctrl := gomock.NewController(t)
	eng, jobs := mocks.NewMockDeploymentEngine(ctrl), mocks.NewMockJobRunner(ctrl)
	reg, clk, work := mocks.NewMockRegistry(ctrl), mocks.NewMockClock(ctrl), mocks.NewMockWorkloadFinder(ctrl)
	eng.EXPECT().SpecDigest(gomock.Any()).DoAndReturn(func(s ports.ReleaseSpec) (string, error) {
		return planned(s.Ref), nil
	}).AnyTimes()
	return domain.Ports{Engine: eng, Jobs: jobs, Registry: reg, Clock: clk, Workloads: work},
		recorders{eng.EXPECT(), jobs.EXPECT(), reg.EXPECT(), clk.EXPECT(), work.EXPECT()}
}

// targetPlan is the small two-release plan of runtime uid.
func targetPlan(t *testing.T) *domain.Plan {
	t.Helper()
	p, err := domain.BuildPlan(domain.PlanInput{RuntimeUID: uid, Bundle: smallBundle()})
	require.NoError(t, err)
	return p
}

// Validation settings of env: the plan's validation recipe and rendered bundle (PLAN-2).
const (
	validationRecipe    = `{"kind":"RecipeResult","apiVersion":"aicr.run/v1"}`
	validationNamespace = "aicr-validation"
	bundleDigest        = ports.Digest("sha256:b0d1e5")
)

func env(t *testing.T) domain.Environment {
	t.Helper()
	p := targetPlan(t)
	return domain.Environment{
		RuntimeUID: uid, TargetPlanDigest: p.Digest, Target: p, ValidationEnabled: true,
		ValidationNamespace: validationNamespace, ValidationRecipe: []byte(validationRecipe), BundleDigest: bundleDigest,
	}
}

type specOpt func(*domain.RolloutSpec)

func spec(t *testing.T, opts ...specOpt) domain.RolloutSpec {
	t.Helper()
	p := targetPlan(t)
	tr, err := domain.PlanTransition(domain.TransitionInput{Target: p})
	require.NoError(t, err)
	s := domain.RolloutSpec{
		Name: rolloutName, RuntimeUID: uid, ToPlanDigest: p.Digest, CreatedAt: t0,
		Deadline: t0.Add(24 * time.Hour), Steps: tr.Steps,
	}
	for _, o := range opts {
		o(&s)
	}
	return s
}

func needsApproval(s *domain.RolloutSpec) { s.ApprovalRequired = true }

func approved(s *domain.RolloutSpec) {
	s.ApprovalRequired = true
	s.Approval = domain.Approval{ApprovedBy: "alice", ExpiresAt: t0.Add(2 * time.Hour), Reason: "window"}
}

func revoked(s *domain.RolloutSpec) {
	approved(s)
	s.Approval.RevokedBy, s.Approval.RevokedAt, s.Approval.RevokeReason = "bob", t0.Add(time.Hour), "training job"
}

func rollout(t *testing.T, s domain.RolloutSpec, st domain.RolloutStatus) *domain.Rollout {
	t.Helper()
	r, err := domain.RolloutFromStatus(s, st)
	require.NoError(t, err)
	return r
}

func progressing(step int) domain.RolloutStatus {
	return domain.RolloutStatus{Phase: domain.PhaseProgressing, Step: step}
}

func inFlight(step int, started time.Time) domain.RolloutStatus {
	return domain.RolloutStatus{Phase: domain.PhaseProgressing, Step: step, StepStartedAt: started}
}

// planned is the spec digest the engine double renders for every release of ref: the tests'
// plans hold one spec per release.
func planned(ref ports.ReleaseRef) string { return "sha256:planned-" + ref.String() }

// written is an engine status of a release this rollout already wrote, asking for the
// planned spec.
func written(ref ports.ReleaseRef, plan string, ready bool) ports.ReleaseStatus {
	st := ports.ReleaseStatus{
		Ref: ref, Owner: ports.ReleaseOwner{RuntimeUID: uid, PlanDigest: plan, Rollout: rolloutName}, SpecDigest: planned(ref),
		DesiredRevision: "r2", SyncedRevision: "r1", Health: ports.HealthProgressing,
		Operation: ports.OperationRunning,
	}
	if ready {
		st.SyncedRevision, st.Health, st.Operation = "r2", ports.HealthHealthy, ports.OperationSucceeded
	}
	return st
}

func advance(t *testing.T, p domain.Ports, r *domain.Rollout, e domain.Environment) domain.Outcome {
	t.Helper()
	out, err := r.Advance(context.Background(), p, e)
	require.NoError(t, err, "a stall is an outcome, not an error")
	return out
}

// advanceAt advances a rollout of spec s in status st once, in e at now; expect sets the port
// calls the case allows (gomock fails any other).
func advanceAt(t *testing.T, s domain.RolloutSpec, st domain.RolloutStatus, e domain.Environment, now time.Time,
	expect func(r recorders, to string)) domain.Outcome {
	t.Helper()
	p, r := newPorts(t)
	r.clock.Now().Return(now).AnyTimes()
	if expect != nil {
		expect(r, s.ToPlanDigest)
	}
	return advance(t, p, rollout(t, s, st), e)
}

func ref(id string) ports.ReleaseRef {
	ns := map[string]string{"cert-manager": "cert-manager", "gpu-operator": "gpu-operator"}[id]
	return ports.ReleaseRef{ID: id, Namespace: ns}
}

// stepsWritten expects the engine List that shows both steps of spec(t) made by this rollout
// (stepsShown), before the rollout validates or succeeds.
func stepsWritten(r recorders, to string) {
	r.engine.List(gomock.Any()).Return([]ports.ReleaseStatus{
		written(ref("cert-manager"), to, true), written(ref("gpu-operator"), to, true),
	}, nil)
}
