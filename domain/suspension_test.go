package domain_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// TestDecideSuspension_CR8: with spec.suspendEngine set, automated sync goes off on every engine
// object of the runtime; lifting it turns it on again. Objects of another runtime (the one
// spec.adoption names included) and objects being removed are never written, and an object
// whose step is in flight is suspended only once its sync applied. The suspension holds (Ready
// EngineSuspended) only when the engine objects show it.
func TestDecideSuspension_CR8(t *testing.T) {
	t.Parallel()
	cm, gpu, nvs := ref("cert-manager"), ref("gpu-operator"), ports.ReleaseRef{ID: "nvsentinel", Namespace: "nvsentinel"}
	at := func(r ports.ReleaseRef, suspended bool) ports.ReleaseStatus {
		st := written(r, "sha256:old", true)
		st.Owner.Rollout, st.Suspended = "rollout-earlier-1", suspended
		return st
	}
	inFlight := written(gpu, "sha256:target", false) // written by rolloutName, not synced yet
	syncedInFlight := written(gpu, "sha256:target", true)
	foreign := at(nvs, false)
	foreign.Owner.RuntimeUID = "old-runtime"
	removing := at(nvs, false)
	removing.Removing = true
	tests := []struct {
		name         string
		suspend      bool
		live         []ports.ReleaseStatus
		wantWrites   []ports.ReleaseRef
		wantDeferred []ports.ReleaseRef
		wantHolds    bool
		wantMessage  string
	}{
		{name: "suspend every automated object", suspend: true, live: []ports.ReleaseStatus{at(cm, false), at(gpu, false)},
			wantWrites:  []ports.ReleaseRef{cm, gpu},
			wantMessage: "suspending automated sync of cert-manager/cert-manager, gpu-operator/gpu-operator"},
		{name: "holds once every object is suspended", suspend: true, live: []ports.ReleaseStatus{at(cm, true), at(gpu, true)},
			wantHolds: true, wantMessage: "automated sync is off on all 2 engine objects of the runtime (spec.suspendEngine)"},
		{name: "holds with no engine object at all", suspend: true, wantHolds: true,
			wantMessage: "automated sync is suspended: the runtime has no engine object (spec.suspendEngine)"},
		{name: "objects of another runtime and objects being removed are left alone", suspend: true,
			live: []ports.ReleaseStatus{at(cm, true), foreign, removing}, wantHolds: true,
			wantMessage: "automated sync is off on all 1 engine objects of the runtime (spec.suspendEngine)"},
		{name: "the step in flight is suspended only once its sync applied", suspend: true,
			live: []ports.ReleaseStatus{at(cm, false), inFlight}, wantWrites: []ports.ReleaseRef{cm},
			wantDeferred: []ports.ReleaseRef{gpu},
			wantMessage:  "suspending automated sync of cert-manager/cert-manager; gpu-operator/gpu-operator wait for the sync of their step in flight"},
		{name: "only the step in flight is left", suspend: true, live: []ports.ReleaseStatus{at(cm, true), inFlight},
			wantDeferred: []ports.ReleaseRef{gpu},
			wantMessage:  "suspending automated sync: gpu-operator/gpu-operator wait for the sync of their step in flight"},
		{name: "a synced step in flight is suspended", suspend: true, live: []ports.ReleaseStatus{syncedInFlight},
			wantWrites: []ports.ReleaseRef{gpu}, wantMessage: "suspending automated sync of gpu-operator/gpu-operator"},
		{name: "lifting it resumes every suspended object", live: []ports.ReleaseStatus{at(cm, true), at(gpu, false), foreign},
			wantWrites: []ports.ReleaseRef{cm}, wantMessage: "turning automated sync back on for cert-manager/cert-manager"},
		{name: "nothing to do without the switch", live: []ports.ReleaseStatus{at(cm, false), inFlight}, wantHolds: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := domain.DecideSuspension(domain.SuspensionInput{Suspend: tt.suspend, RuntimeUID: uid,
				Rollout: rolloutName, RolloutPlan: "sha256:target", Live: tt.live})
			assert.Equal(t, tt.wantWrites, got.Writes)
			assert.Equal(t, tt.wantDeferred, got.Deferred)
			assert.Equal(t, tt.wantHolds, got.Holds())
			if tt.wantMessage != "" {
				assert.Equal(t, tt.wantMessage, got.Message())
			}
		})
	}
}

// TestSuspensionRefused_CR8: the engine's refusal to suspend (a sync runs) and an object that is
// not the runtime's are EngineSuspensionRefused with the engine's message; an object gone
// meanwhile is no stall; an engine problem stalls as elsewhere; anything else is transient.
func TestSuspensionRefused_CR8(t *testing.T) {
	t.Parallel()
	cm := ref("cert-manager")
	transient := errors.New("connection reset")
	tests := []struct {
		name      string
		suspend   bool
		err       error
		want      domain.StallReason
		wantMsg   string
		transient bool
	}{
		{name: "success", suspend: true},
		{name: "a sync runs", suspend: true, err: fmt.Errorf("application argocd/x is syncing: %w", ports.ErrSuspensionRefused),
			want:    domain.StallEngineSuspensionRefused,
			wantMsg: "suspend cert-manager/cert-manager: application argocd/x is syncing: engine suspension refused"},
		{name: "not the runtime's object", err: ports.ErrForeignObject, want: domain.StallEngineSuspensionRefused,
			wantMsg: "resume cert-manager/cert-manager: foreign object in the way"},
		{name: "gone meanwhile", suspend: true, err: ports.ErrTargetNotFound},
		{name: "the engine is missing", suspend: true, err: ports.ErrEngineMissing, want: domain.StallEngineMissing},
		{name: "a transient error", suspend: true, err: transient, transient: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := domain.SuspensionRefused(cm, tt.suspend, tt.err)
			if tt.transient {
				require.ErrorIs(t, err, transient)
				assert.Nil(t, s)
				return
			}
			require.NoError(t, err)
			if tt.want == "" {
				assert.Nil(t, s)
				return
			}
			require.NotNil(t, s)
			assert.Equal(t, tt.want, s.Reason())
			if tt.wantMsg != "" {
				assert.Equal(t, tt.wantMsg, s.Message())
			}
		})
	}
}
