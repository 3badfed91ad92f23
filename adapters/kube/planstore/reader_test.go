package planstore

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
)

// TestReader_CacheEvictsTheLeastRecentlyUsedPlan: the decoded-plan cache holds
// cacheSize plans; one more evicts the plan read least recently, not every plan.
func TestReader_CacheEvictsTheLeastRecentlyUsedPlan(t *testing.T) {
	t.Parallel()
	p := NewReader(nil, "aicr-system", nil)
	key := func(i int) string { return fmt.Sprintf("uid-%d/1", i) }
	plans := make([]*configdoc.Plan, cacheSize+1)
	for i := range cacheSize {
		plans[i] = &configdoc.Plan{}
		p.remember(key(i), plans[i])
	}
	got, ok := p.cached(key(0))
	require.True(t, ok, "a full cache still holds its first plan")
	assert.Same(t, plans[0], got)

	plans[cacheSize] = &configdoc.Plan{}
	p.remember(key(cacheSize), plans[cacheSize])

	assert.Equal(t, cacheSize, p.decoded.Len(), "the cache stays at its bound")
	_, ok = p.cached(key(1))
	assert.False(t, ok, "the least recently used plan is evicted")
	for _, i := range []int{0, 2, cacheSize - 1, cacheSize} {
		got, ok := p.cached(key(i))
		if assert.True(t, ok, "plan %d is kept", i) {
			assert.Same(t, plans[i], got)
		}
	}
}
