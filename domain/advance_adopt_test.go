package domain_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// TestAdvance_AdoptTakesOverThenApplies: an Adopt step takes the earlier
// runtime's object over (keeping its plan digest, no rollout) and applies the
// target in the same step, so the adopted release runs the target's chart and
// values; when that Apply fails, the next reconcile applies without adopting
// again (RO-7, ENG-3).
func TestAdvance_AdoptTakesOverThenApplies(t *testing.T) {
	t.Parallel()
	e := env(t)
	e.AdoptionRuntimeUID = "old-runtime"
	s := spec(t, func(s *domain.RolloutSpec) { s.Steps[0].Operation = domain.OpAdopt })
	cm := ref("cert-manager")
	old := ports.ReleaseStatus{Ref: cm, Owner: ports.ReleaseOwner{RuntimeUID: "old-runtime", PlanDigest: "sha256:old"}}
	taken := ports.ReleaseOwner{RuntimeUID: uid, PlanDigest: "sha256:old"}
	target := ports.ReleaseOwner{RuntimeUID: uid, PlanDigest: s.ToPlanDigest, Rollout: rolloutName}
	applied := func(spec ports.ReleaseSpec) bool {
		rel, _ := e.Target.Release(cm)
		return spec.Owner == target && spec.Ref == cm && spec.Chart == rel.Chart
	}
	for _, tc := range []struct {
		name    string
		before  ports.ReleaseStatus
		expect  func(r recorders)
		started bool
		stall   domain.StallReason
	}{
		{"adopts then applies the target", old, func(r recorders) {
			gomock.InOrder(
				r.engine.Adopt(gomock.Any(), cm, "old-runtime", taken).Return(nil),
				r.engine.Apply(gomock.Any(), gomock.Cond(applied)).Return(nil),
			)
		}, true, ""},
		{"an Apply that failed after the adoption is retried alone", ports.ReleaseStatus{Ref: cm, Owner: taken},
			func(r recorders) { r.engine.Apply(gomock.Any(), gomock.Cond(applied)).Return(nil) }, true, ""},
		{"an Apply failing after the adoption is transient", old, func(r recorders) {
			r.engine.Adopt(gomock.Any(), cm, "old-runtime", taken).Return(nil)
			r.engine.Apply(gomock.Any(), gomock.Any()).Return(errBoom)
		}, false, ""},
		{"an object of another runtime is refused", old, func(r recorders) {
			r.engine.Adopt(gomock.Any(), cm, "old-runtime", taken).Return(ports.ErrForeignObject)
		}, false, domain.StallForeignObject},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, r := newPorts(t)
			r.clock.Now().Return(t0).AnyTimes()
			r.engine.Status(gomock.Any(), cm).Return(tc.before, nil)
			tc.expect(r)
			out, err := rollout(t, s, progressing(0)).Advance(context.Background(), p, e)
			if tc.stall == "" && !tc.started {
				require.ErrorIs(t, err, errBoom)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.started, !out.Status.StepStartedAt.IsZero())
			if tc.stall != "" {
				require.NotNil(t, out.Stall)
				assert.Equal(t, tc.stall, out.Stall.Reason())
			}
		})
	}
}
