package manager

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
)

// syncedAfter reports its caches synced from the given probe on.
type syncedAfter struct{ probes, synced int }

func (s *syncedAfter) WaitForCacheSync(context.Context) bool {
	s.probes++
	return s.probes >= s.synced
}

// TestCachesSynced: readiness fails while the caches have not synced and passes once they have.
func TestCachesSynced(t *testing.T) {
	t.Parallel()
	check := cachesSynced(&syncedAfter{synced: 2})
	req := httptest.NewRequest("GET", "/readyz", nil)
	assert.ErrorIs(t, check(req), errCachesNotSynced)
	assert.NoError(t, check(req))
}
