package domain

import "time"

// ClockSkewTolerance is how far the clock of another machine may be off the operator's for the
// decisions that compare a time it recorded (a kubelet's pod condition, the API server's
// deletionTimestamp, Argo CD's operationState) with the operator's clock or with a time a third
// machine recorded. Such decisions go through RemoteElapsed and RemoteNotBefore, which lean
// towards waiting: a remote clock off by up to this much never makes a fresh wait look past its
// bound, nor an engine sync made since a rollout's creation look older than it. Clocks of a
// cluster kept by NTP are well within it.
const ClockSkewTolerance = 2 * time.Minute

// RemoteElapsed reports whether more than bound has passed since since, a time another machine
// recorded, at now on the operator's clock: only once now is bound plus ClockSkewTolerance past
// since, so a remote clock behind the operator's delays the decision rather than making it early.
func RemoteElapsed(since, now time.Time, bound time.Duration) bool {
	return now.Sub(since) >= bound+ClockSkewTolerance
}

// RemoteNotBefore reports whether remote, a time one machine recorded, may be at or after local,
// a time recorded by another clock: remote is at most ClockSkewTolerance before local. A zero
// remote (never recorded) is before everything.
func RemoteNotBefore(remote, local time.Time) bool {
	return !remote.IsZero() && !remote.Before(local.Add(-ClockSkewTolerance))
}
