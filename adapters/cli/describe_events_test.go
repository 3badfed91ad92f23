package cli_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// rolloutEvent is an Event the operator recorded, in namespace default, for the object kind/name.
func rolloutEvent(n int, kind, name, reason, msg string, at time.Time) *corev1.Event {
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: fmt.Sprintf("%s.%d", name, n), Namespace: metav1.NamespaceDefault},
		InvolvedObject: corev1.ObjectReference{Kind: kind, Name: name},
		Type:           corev1.EventTypeNormal, Reason: reason, Message: msg, Count: 1,
		FirstTimestamp: metav1.NewTime(at), LastTimestamp: metav1.NewTime(at),
	}
}

// TestDescribe_RecentEvents: describe ends with the rollout's newest Events, oldest first, at
// most ten, none of another object's; without any it says so.
func TestDescribe_RecentEvents(t *testing.T) {
	t.Parallel()
	ro := pendingRollout()
	at := time.Date(2026, 12, 6, 3, 0, 0, 0, time.UTC)
	var objs []runtime.Object
	for i := range 12 {
		objs = append(objs, rolloutEvent(i, "RuntimeRollout", ro.Name, "StepStarted",
			fmt.Sprintf("step %d started", i), at.Add(time.Duration(11-i)*time.Minute)))
	}
	objs = append(objs,
		rolloutEvent(20, "RuntimeRollout", "rollout-other-1", "StepStarted", "another rollout", at.Add(time.Hour)),
		rolloutEvent(21, "ClusterRuntime", ro.Name, "Resolved", "another kind", at.Add(time.Hour)))
	out, errOut, code, _ := fakeRunWith(t, ro, objs, "alice", "describe", ro.Name)
	require.Equal(t, 0, code, errOut)
	_, events, found := strings.Cut(out, "\nEvents (newest 10 at most):\n")
	require.True(t, found, out)
	lines := strings.Split(strings.TrimSpace(events), "\n")
	require.Len(t, lines, 11, "a header and ten Events")
	assert.Regexp(t, `^Type\s+Reason\s+Last seen\s+Count\s+Message$`, lines[0])
	assert.Regexp(t, `^Normal\s+StepStarted\s+2026-12-06T03:02:00Z\s+1\s+step 9 started$`, strings.TrimSpace(lines[1]),
		"the oldest of the newest ten first")
	assert.Regexp(t, `^Normal\s+StepStarted\s+2026-12-06T03:11:00Z\s+1\s+step 0 started$`, strings.TrimSpace(lines[10]))
	assert.NotContains(t, events, "another")

	out, errOut, code, _ = fakeRunWith(t, ro, objs, "alice", "describe", ro.Name, "-o", "json")
	require.Equal(t, 0, code, errOut)
	var doc struct {
		Events []struct {
			Type, Reason, LastSeen, Message string
			Count                           int
		} `json:"events"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Len(t, doc.Events, 10, "-o json carries the same Events")
	assert.Equal(t, "step 0 started", doc.Events[9].Message)
	assert.Equal(t, "2026-12-06T03:11:00Z", doc.Events[9].LastSeen)
	assert.Equal(t, 1, doc.Events[9].Count)

	out, errOut, code, _ = fakeRunWith(t, ro, nil, "alice", "describe", ro.Name)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "\nEvents: none\n")
}
