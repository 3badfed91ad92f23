package domain

import (
	"errors"
	"fmt"

	"github.com/NVIDIA/aicr/ports"
)

// portReasons is the one table from a port's sentinel error to the stall it decides.
var portReasons = []struct {
	sentinel error
	reason   StallReason
}{
	{ports.ErrEngineMissing, StallEngineMissing},
	{ports.ErrProjectMissing, StallProjectMissing},
	{ports.ErrEngineUnsupported, StallEngineMissing},
	{ports.ErrUnauthorized, StallUnauthorized},
	{ports.ErrForeignObject, StallForeignObject},
	{ports.ErrSuspensionRefused, StallEngineSuspensionRefused},
	{ports.ErrCredentialsUnavailable, StallRegistryCredentialsUnavailable},
	{ports.ErrCredentialsStale, StallRegistryCredentialsStale},
}

// PortStall decides the stall a port's sentinel error means, its message "what: err"; nil for
// any other error, which is transient and retried with backoff.
func PortStall(what string, err error) *Stall {
	for _, r := range portReasons {
		if errors.Is(err, r.sentinel) {
			return stallf(r.reason, fmt.Sprintf("%s: %v", what, err))
		}
	}
	return nil
}

// portStall maps a port's sentinel error to a stall; any other error is
// transient and returned wrapped for the caller to retry with backoff.
func portStall(what string, err error) (*Stall, error) {
	if s := PortStall(what, err); s != nil {
		return s, nil
	}
	return nil, fmt.Errorf("%s: %w", what, err)
}

// stalled builds a stall outcome that keeps the status unchanged.
func (r *Rollout) stalled(s *Stall) Outcome {
	st := r.status
	st.Message = s.message
	return Outcome{Status: st, Stall: s}
}

// stallOrError turns a port error into a stall outcome or a transient error.
func (r *Rollout) stallOrError(what string, err error) (Outcome, error) {
	s, terr := portStall(what, err)
	if terr != nil {
		return Outcome{Status: r.status}, terr
	}
	return r.stalled(s), nil
}

// end moves the rollout to an outcome: the only way, with finishSteps, an Outcome is Ended.
func (r *Rollout) end(p Phase, msg string) Outcome {
	r.status.Phase, r.status.Message = p, msg
	return Outcome{Status: r.status, Stall: terminalStall(p, r.spec.Name, msg), Event: "rollout " + string(p) + ": " + msg,
		Ended: true}
}
