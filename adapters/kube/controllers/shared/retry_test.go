package shared_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
)

// TestRetryLimiterIsCapped: a request that failed many times in a row (a long outage) is tried
// again within MaxRetryBackoff, and the first retries come at once.
func TestRetryLimiterIsCapped(t *testing.T) {
	t.Parallel()
	limiter := shared.RetryLimiter()
	req := reconcile.Request{}
	req.Name = "aicr"
	assert.Equal(t, 5*time.Millisecond, limiter.When(req), "the first retry comes at once")
	var last time.Duration
	for range 40 {
		last = limiter.When(req)
		assert.LessOrEqual(t, last, shared.MaxRetryBackoff)
	}
	assert.Equal(t, shared.MaxRetryBackoff, last, "a long outage reaches the cap, not more")
	limiter.Forget(req)
	assert.Equal(t, 5*time.Millisecond, limiter.When(req), "a success starts the backoff again")
}
