package rollout_test

import (
	"context"
	"strings"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

// events lists the Events recorded on the object of uid, oldest first as listed.
func (h *harness) events(uid string) []corev1.Event {
	h.t.Helper()
	var list corev1.EventList
	require.NoError(h.t, k8s.List(context.Background(), &list))
	var out []corev1.Event
	for _, e := range list.Items {
		if string(e.InvolvedObject.UID) == uid {
			out = append(out, e)
		}
	}
	return out
}

// eventsWith returns the Events on the object of uid with reason whose message contains part.
func (h *harness) eventsWith(uid, reason, part string) []corev1.Event {
	h.t.Helper()
	var out []corev1.Event
	for _, e := range h.events(uid) {
		if e.Reason == reason && strings.Contains(e.Message, part) {
			out = append(out, e)
		}
	}
	return out
}

// waitEvent waits until an Event of type typ with reason, whose message contains part, is
// recorded on the object of uid (Events are sent asynchronously), and returns it.
func (h *harness) waitEvent(uid, typ, reason, part string) corev1.Event {
	h.t.Helper()
	var got corev1.Event
	require.Eventually(h.t, func() bool {
		for _, e := range h.eventsWith(uid, reason, part) {
			if e.Type == typ {
				got = e
				return true
			}
		}
		return false
	}, waitFor, tick, "no %s Event %s %q on %s (have %v)", typ, reason, part, uid, eventReasons(h.events(uid)))
	return got
}

// recordedOnce asserts that exactly one Event with reason (and message part) is on uid, counted once:
// the recorder aggregates repeats into one Event with a higher count.
func (h *harness) recordedOnce(uid, reason, part string) {
	h.t.Helper()
	evs := h.eventsWith(uid, reason, part)
	require.Len(h.t, evs, 1, "one %s Event on %s", reason, uid)
	require.EqualValues(h.t, 1, max(evs[0].Count, 1), "the %s Event is recorded once, not on every reconcile", reason)
}

func eventReasons(evs []corev1.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type + "/" + e.Reason
	}
	return out
}
