package app_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"

	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/mocks"
	"github.com/NVIDIA/aicr/ports"
)

// consistentEngine is a gomock engine that reports whether its reads show its writes at once.
type consistentEngine struct {
	*mocks.MockDeploymentEngine
	consistent bool
}

func (e consistentEngine) ReadsItsWrites() bool { return e.consistent }

// TestAdvanceRollout_JudgesEachMutationAtOnce: on an engine whose reads show its writes at once
// (ports.ConsistentReads), a step's mutation is judged by the next decision of the same call: a
// step shown ready at once is followed by the next one, each release written once, up to
// MaxDecisions in one call; a step not ready yet waits. On an engine read through a cache a
// mutation ends the call, however ready the engine shows the step (RO-12).
func TestAdvanceRollout_JudgesEachMutationAtOnce(t *testing.T) {
	t.Parallel()
	const releases = app.MaxDecisions
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	plan := &domain.Plan{Digest: "sha256:aa", RuntimeUID: runtimeUID}
	spec := domain.RolloutSpec{Name: "rollout-0123456789abcdef-1", RuntimeUID: runtimeUID, ToPlanDigest: plan.Digest,
		CreatedAt: t0, Deadline: t0.Add(time.Hour)}
	for i := range releases {
		rel := domain.Release{ID: fmt.Sprintf("release-%02d", i), Namespace: "components"}
		plan.Releases = append(plan.Releases, rel)
		spec.Steps = append(spec.Steps, domain.Step{Release: rel.Ref(), Operation: domain.OpInstall})
	}
	env := domain.Environment{RuntimeUID: runtimeUID, TargetPlanDigest: plan.Digest, Target: plan}
	tests := []struct {
		name string
		// consistent: the engine reports that its reads show its writes at once.
		consistent bool
		// ready: a written release reads synced and healthy at once.
		ready     bool
		decisions int
		steps     int
		writes    int
		// waits: the last decision waits for the engine; otherwise the caller goes on at once.
		waits bool
	}{
		{name: "consistent reads, each write ready at once", consistent: true, ready: true,
			decisions: app.MaxDecisions, steps: app.MaxDecisions / 2, writes: app.MaxDecisions / 2},
		{name: "consistent reads, the write not ready yet", consistent: true, decisions: 1, writes: 1, waits: true},
		{name: "reads through a cache, each write ready at once", ready: true, decisions: 1, writes: 1, waits: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctrl := gomock.NewController(t)
			engine, clock := mocks.NewMockDeploymentEngine(ctrl), mocks.NewMockClock(ctrl)
			clock.EXPECT().Now().Return(t0).AnyTimes()
			writes := map[ports.ReleaseRef]int{}
			engine.EXPECT().SpecDigest(gomock.Any()).Return("sha256:planned", nil).AnyTimes()
			engine.EXPECT().Apply(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, s ports.ReleaseSpec) error {
				writes[s.Ref]++
				return nil
			}).AnyTimes()
			engine.EXPECT().Status(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, ref ports.ReleaseRef) (ports.ReleaseStatus, error) {
				if writes[ref] == 0 {
					return ports.ReleaseStatus{}, ports.ErrTargetNotFound
				}
				st := ports.ReleaseStatus{Ref: ref, Owner: ports.ReleaseOwner{RuntimeUID: runtimeUID, PlanDigest: plan.Digest, Rollout: spec.Name},
					DesiredRevision: "r1", SyncedRevision: "r0", Health: ports.HealthProgressing, Operation: ports.OperationRunning,
					SpecDigest: "sha256:planned"}
				if tt.ready {
					st.SyncedRevision, st.Health, st.Operation = "r1", ports.HealthHealthy, ports.OperationSucceeded
				}
				return st, nil
			}).AnyTimes()
			r, err := domain.RolloutFromStatus(spec, domain.RolloutStatus{Phase: domain.PhaseProgressing})
			require.NoError(t, err)

			p := domain.Ports{Engine: consistentEngine{MockDeploymentEngine: engine, consistent: tt.consistent}, Clock: clock}
			out, decisions, err := app.AdvanceRollout(context.Background(), r, p, env)
			require.NoError(t, err)
			assert.Len(t, decisions, tt.decisions)
			assert.Equal(t, tt.steps, out.Status.Step, "steps finished")
			assert.Equal(t, tt.waits, out.RequeueAfter > 0, "waits for the engine")
			total := 0
			for ref, n := range writes {
				assert.Equal(t, 1, n, "writes of %s", ref)
				total += n
			}
			assert.Equal(t, tt.writes, total, "releases written")
		})
	}
}
