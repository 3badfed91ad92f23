package domain_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/mock/gomock"

	"github.com/NVIDIA/aicr/domain"
)

// TestAdvance_WaitingStepNamesTheEngineObjectAndItsBound: while a step's engine object is not
// ready (its engine stopped reporting), the rollout's message names the object as the engine
// does, since when the step waits and the step timeout with the time it runs out; the message
// stays the same as the wait goes on, so waiting writes no status.
func TestAdvance_WaitingStepNamesTheEngineObjectAndItsBound(t *testing.T) {
	t.Parallel()
	cm := ref("cert-manager")
	want := fmt.Sprintf("rollout %s: step 1/%d cert-manager (Install): waiting since 2026-03-01T12:00:00Z for "+
		"Application argocd/aicr-cert-manager to report the step's revision synced and healthy (step timeout 15m0s, "+
		"fails at 2026-03-01T12:15:00Z)", spec(t).Name, len(spec(t).Steps))
	for _, elapsed := range []time.Duration{time.Minute, 14 * time.Minute} {
		p, r := newPorts(t)
		s := spec(t)
		r.clock.Now().Return(t0.Add(elapsed))
		st := written(cm, s.ToPlanDigest, false)
		st.Object = "Application argocd/aicr-cert-manager"
		r.engine.Status(gomock.Any(), cm).Return(st, nil)
		out := advance(t, p, rollout(t, s, inFlight(0, t0)), env(t))
		assert.Equal(t, domain.PhaseProgressing, out.Phase())
		assert.Equal(t, want, out.Status.Message, "after %s", elapsed)
	}
}

// TestStepWaitingMessage names the release's engine object when the engine names none, and
// says a Remove step waits for its deletion.
func TestStepWaitingMessage(t *testing.T) {
	t.Parallel()
	step := domain.Step{Release: ref("cert-manager"), Operation: domain.OpRemove}
	assert.Equal(t, "rollout r: step 2/3 cert-manager (Remove): waiting since 2026-03-01T12:00:00Z for the engine object of "+
		ref("cert-manager").String()+" to be deleted (step timeout 5m0s, fails at 2026-03-01T12:05:00Z)",
		domain.StepWaitingMessage("r", 1, 3, step, "", t0, 5*time.Minute))
}
