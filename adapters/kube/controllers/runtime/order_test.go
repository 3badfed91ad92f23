package runtime

import (
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
)

func orderedRollout(name string, sequence int, created time.Time, from, to string) aicrv1alpha1.RuntimeRollout {
	ro := aicrv1alpha1.RuntimeRollout{
		ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(created)},
		Spec:       aicrv1alpha1.RuntimeRolloutSpec{FromPlanDigest: from, ToPlanDigest: to},
	}
	if sequence > 0 {
		ro.Annotations = map[string]string{aicrv1alpha1.AnnotationSequence: strconv.Itoa(sequence)}
	}
	return ro
}

func sortedNames(rs []aicrv1alpha1.RuntimeRollout) []string {
	sort.SliceStable(rs, func(i, j int) bool { return shared.OlderRollout(&rs[i], &rs[j]) })
	names := make([]string, len(rs))
	for i := range rs {
		names[i] = rs[i].Name
	}
	return names
}

// TestOlderRollout_SequenceSurvivesARestore: a restore recreates rollouts in any order within
// any second, so creationTimestamp no longer says which Succeeded rollout is the newest; the
// sequence annotation does, across a rollback cycle too (RO-13).
func TestOlderRollout_SequenceSurvivesARestore(t *testing.T) {
	restoredAt := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	install := orderedRollout("install", 1, restoredAt.Add(2*time.Second), "", "sha256:a")
	upgrade := orderedRollout("upgrade", 2, restoredAt.Add(time.Second), "sha256:a", "sha256:b")
	rollback := orderedRollout("rollback", 3, restoredAt, "sha256:b", "sha256:a")
	again := orderedRollout("again", 4, restoredAt, "sha256:a", "sha256:b")
	assert.Equal(t, []string{"install", "upgrade", "rollback", "again"},
		sortedNames([]aicrv1alpha1.RuntimeRollout{again, rollback, upgrade, install}))
}

// TestOlderRollout_WithoutSequence: rollouts an operator without sequences created order by
// creation time, then by the plan chain within one second, and are older than any rollout
// with a sequence.
func TestOlderRollout_WithoutSequence(t *testing.T) {
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	first := orderedRollout("first", 0, at, "", "sha256:a")
	chained := orderedRollout("chained", 0, at, "sha256:a", "sha256:b")
	later := orderedRollout("later", 0, at.Add(time.Minute), "sha256:b", "sha256:c")
	numbered := orderedRollout("numbered", 1, at.Add(-time.Hour), "sha256:c", "sha256:d")
	assert.Equal(t, []string{"first", "chained", "later", "numbered"},
		sortedNames([]aicrv1alpha1.RuntimeRollout{numbered, later, chained, first}))
}
