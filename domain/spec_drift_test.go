package domain_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// edited is the engine status of a release that records this rollout and plan and that the
// engine reports synced and healthy, while its spec is not the one the plan renders: edited
// by hand, or its annotations forged onto an object of an earlier plan.
func edited(id, to string) ports.ReleaseStatus {
	st := written(ref(id), to, true)
	st.SpecDigest = "sha256:edited"
	return st
}

// TestAdvance_HandEditedObjectIsNotReady: a step whose engine object Argo CD reports synced
// and healthy, but whose spec differs from the plan's, is not ready: the step writes the plan's
// spec again (the repair) and stays in flight.
func TestAdvance_HandEditedObjectIsNotReady(t *testing.T) {
	t.Parallel()
	gpu := ref("gpu-operator")
	var applied ports.ReleaseSpec
	out := advanceAt(t, spec(t, approved), inFlight(1, t0), env(t), t0.Add(10*time.Minute), func(r recorders, to string) {
		r.engine.Status(gomock.Any(), gpu).Return(edited("gpu-operator", to), nil)
		r.engine.Apply(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, s ports.ReleaseSpec) error {
			applied = s
			return nil
		})
	})
	assert.Equal(t, domain.PhaseProgressing, out.Phase())
	assert.Equal(t, 1, out.Status.Step, "the step is not done")
	assert.True(t, out.Mutated, "the drift is repaired by writing the plan's spec again")
	assert.Equal(t, gpu, applied.Ref)
}

// TestAdvance_ForgedAnnotationsDoNotSkipAStep: annotations naming this rollout and its target
// plan, forged onto an engine object that still asks for another spec, do not make the step
// count as made: under a revoked approval the rollout ends before it instead of going on to the
// next one, and under a valid approval the step writes its spec.
func TestAdvance_ForgedAnnotationsDoNotSkipAStep(t *testing.T) {
	t.Parallel()
	gpu := ref("gpu-operator")
	t.Run("revoked approval", func(t *testing.T) {
		t.Parallel()
		out := advanceAt(t, spec(t, revoked), inFlight(1, t0.Add(30*time.Minute)), env(t), forgedNow, func(r recorders, to string) {
			r.engine.Status(gomock.Any(), gpu).Return(edited("gpu-operator", to), nil)
		})
		assert.Equal(t, domain.PhaseRevoked, out.Phase())
		require.NotNil(t, out.Stall)
		assert.Equal(t, domain.StallRolloutRevoked, out.Stall.Reason())
	})
	t.Run("valid approval", func(t *testing.T) {
		t.Parallel()
		out := advanceAt(t, spec(t, approved), progressing(1), env(t), t0.Add(10*time.Minute), func(r recorders, to string) {
			r.engine.Status(gomock.Any(), gpu).Return(edited("gpu-operator", to), nil)
			r.engine.Apply(gomock.Any(), gomock.Any()).Return(nil)
		})
		assert.Equal(t, 1, out.Status.Step)
		assert.True(t, out.Mutated, "the step is made, not skipped")
	})
}

// TestAdvance_NoEvidenceForAnEditedObject: a validation run that passed writes no evidence
// while an engine object of the target plan asks for another spec than the plan renders: the
// rollout goes back to that step when the engine's list shows it, and evidence is refused when
// only the release's own status does.
func TestAdvance_NoEvidenceForAnEditedObject(t *testing.T) {
	t.Parallel()
	run := ports.JobRef{Name: validationRun}
	passed := func(r recorders) {
		r.jobs.Status(gomock.Any(), run).Return(ports.JobStatus{State: ports.JobSucceeded}, nil)
		r.jobs.Output(gomock.Any(), run).Return(output(ctrf(1, 1, 0, 0, 0, "a", "passed")), nil)
	}
	e := env(t)
	e.ValidationRequired = true
	t.Run("the list shows it: back to its step", func(t *testing.T) {
		t.Parallel()
		out := advanceAt(t, spec(t), validating(), e, t0.Add(time.Hour), func(r recorders, to string) {
			passed(r)
			r.engine.List(gomock.Any()).Return([]ports.ReleaseStatus{
				written(ref("cert-manager"), to, true), edited("gpu-operator", to),
			}, nil)
		})
		assert.Equal(t, domain.PhaseProgressing, out.Phase())
		assert.Equal(t, 1, out.Status.Step)
		assert.Empty(t, out.EvidenceDigest)
	})
	t.Run("only its status shows it: refused", func(t *testing.T) {
		t.Parallel()
		p, r := newPorts(t)
		r.clock.Now().Return(t0.Add(time.Hour)).AnyTimes()
		to := spec(t).ToPlanDigest
		passed(r)
		stepsWritten(r, to)
		r.engine.Status(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, rf ports.ReleaseRef) (ports.ReleaseStatus, error) {
			return edited(rf.ID, to), nil
		}).AnyTimes()
		out, err := rollout(t, spec(t), validating()).Advance(context.Background(), p, e)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "no evidence is written")
		assert.Empty(t, out.EvidenceDigest)
	})
}

// TestDriftedReleases: only an engine object that records the runtime and the plan and asks for
// another spec than planned is drifted; a missing object, or one of another plan or runtime, is
// not the plan's yet.
func TestDriftedReleases(t *testing.T) {
	t.Parallel()
	p := targetPlan(t)
	want := map[ports.ReleaseRef]string{}
	for _, r := range p.Releases {
		want[r.Ref()] = planned(r.Ref())
	}
	other := edited("cert-manager", "sha256:other-plan")
	assert.Empty(t, domain.DriftedReleases(p, uid, []ports.ReleaseStatus{written(ref("gpu-operator"), p.Digest, true), other}, want))
	foreign := edited("gpu-operator", p.Digest)
	foreign.Owner.RuntimeUID = "another"
	assert.Empty(t, domain.DriftedReleases(p, uid, []ports.ReleaseStatus{foreign}, want))
	assert.Equal(t, []ports.ReleaseRef{ref("gpu-operator")},
		domain.DriftedReleases(p, uid, []ports.ReleaseStatus{edited("gpu-operator", p.Digest)}, want))
}
