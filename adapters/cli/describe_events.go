package cli

import (
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

const (
	// maxDescribedEvents bounds the Events describe prints: the newest.
	maxDescribedEvents = 10
	// eventsNamespace holds the Events of a cluster-scoped object such as a RuntimeRollout.
	eventsNamespace = metav1.NamespaceDefault
	// rolloutKind is the involvedObject kind of a rollout's Events.
	rolloutKind = "RuntimeRollout"
)

// recentEvents returns the newest Events recorded for the rollout ro, oldest first. A caller
// who may not list Events gets none and a warning that says which grant is missing.
func (s *session) recentEvents(ro *aicrv1alpha1.RuntimeRollout) ([]corev1.Event, error) {
	selector := fields.Set{"involvedObject.kind": rolloutKind, "involvedObject.name": ro.Name}
	list, err := s.core.CoreV1().Events(eventsNamespace).List(s.ctx,
		metav1.ListOptions{FieldSelector: selector.AsSelector().String()})
	if apierrors.IsForbidden(err) {
		s.warn("Events not shown: listing events in namespace %s is forbidden to you", eventsNamespace)
		return nil, nil
	}
	if err != nil {
		return nil, s.check("list the rollout's events", err)
	}
	var events []corev1.Event
	for _, e := range list.Items {
		if e.InvolvedObject.Kind == rolloutKind && e.InvolvedObject.Name == ro.Name &&
			(e.InvolvedObject.UID == "" || e.InvolvedObject.UID == ro.UID) {
			events = append(events, e)
		}
	}
	sort.SliceStable(events, func(i, j int) bool { return lastSeen(events[i]).Before(lastSeen(events[j])) })
	if len(events) > maxDescribedEvents {
		events = events[len(events)-maxDescribedEvents:]
	}
	return events, nil
}

// lastSeen is when the Event last happened, whichever of its times the recorder set.
func lastSeen(e corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.FirstTimestamp.Time
}

// writeEvents prints the Events as kubectl describe does: type, reason, when, count, message.
func writeEvents(w io.Writer, events []corev1.Event) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	p := &printer{w: tw}
	if len(events) == 0 {
		p.printf("\nEvents: none\n")
		return p.result("events")
	}
	p.printf("\nEvents (newest %d at most):\n  Type\tReason\tLast seen\tCount\tMessage\n", maxDescribedEvents)
	for _, e := range events {
		p.printf("  %s\t%s\t%s\t%d\t%s\n", e.Type, e.Reason, timestamp(lastSeen(e)), max(e.Count, 1),
			strings.ReplaceAll(e.Message, "\n", " "))
	}
	if err := p.result("events"); err != nil {
		return err
	}
	return tw.Flush()
}
