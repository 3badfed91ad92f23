package rollout

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// TestOwnWrites_Latest: a rollout the cache serves in a version the operator's own last write
// superseded is decided on that write; a cache that caught up with it, a version written by
// someone else after it, or a new rollout of the same name is read as the cache serves it, and
// the write is forgotten (no conflict after each step's write).
func TestOwnWrites_Latest(t *testing.T) {
	version := func(rv string, uid types.UID) *aicrv1alpha1.RuntimeRollout {
		return &aicrv1alpha1.RuntimeRollout{ObjectMeta: metav1.ObjectMeta{Name: "rollout-0123456789abcdef-1", UID: uid, ResourceVersion: rv}}
	}
	tests := []struct {
		name string
		// writes are the (base, written) resourceVersions of the operator's writes, in order.
		writes     [][2]string
		cached     *aicrv1alpha1.RuntimeRollout
		want       string
		thenCached string // what a second read of the same cached version returns
	}{
		{name: "no write remembered: the cache", cached: version("10", "a"), want: "10", thenCached: "10"},
		{name: "the cache serves the version written over: the write", writes: [][2]string{{"10", "11"}},
			cached: version("10", "a"), want: "11", thenCached: "11"},
		{name: "the cache is two writes behind: the last write", writes: [][2]string{{"10", "11"}, {"11", "12"}},
			cached: version("10", "a"), want: "12", thenCached: "12"},
		{name: "a live read between the writes is older too", writes: [][2]string{{"10", "11"}, {"13", "14"}},
			cached: version("11", "a"), want: "14", thenCached: "14"},
		{name: "the cache caught up: the cache, the write forgotten", writes: [][2]string{{"10", "11"}},
			cached: version("11", "a"), want: "11", thenCached: "11"},
		{name: "someone wrote after: the cache, the write forgotten", writes: [][2]string{{"10", "11"}},
			cached: version("15", "a"), want: "15", thenCached: "15"},
		{name: "a new rollout of the same name: the cache", writes: [][2]string{{"10", "11"}},
			cached: version("10", "b"), want: "10", thenCached: "10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newOwnWrites()
			for _, wr := range tt.writes {
				w.remember(wr[0], version(wr[1], "a"))
			}
			assert.Equal(t, tt.want, w.latest(tt.cached).ResourceVersion)
			assert.Equal(t, tt.thenCached, w.latest(tt.cached.DeepCopy()).ResourceVersion)
		})
	}
}

// TestOwnWrites_Bounded: a remembered write keeps at most maxSuperseded older versions, the
// oldest dropped first; forget drops the rollout's write.
func TestOwnWrites_Bounded(t *testing.T) {
	w := newOwnWrites()
	ro := &aicrv1alpha1.RuntimeRollout{ObjectMeta: metav1.ObjectMeta{Name: "rollout-0123456789abcdef-1", UID: "a"}}
	for i := range 2 * maxSuperseded {
		ro.ResourceVersion = fmt.Sprint(i + 1)
		w.remember(fmt.Sprint(i), ro)
	}
	assert.Len(t, w.byName[ro.Name].superseded, maxSuperseded)
	oldest := ro.DeepCopy()
	oldest.ResourceVersion = "0"
	assert.Equal(t, "0", w.latest(oldest).ResourceVersion, "a version older than the bound is read as cached")
	w.remember("31", ro)
	w.forget(ro.Name)
	assert.Empty(t, w.byName)
}
