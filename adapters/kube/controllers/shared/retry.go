package shared

import (
	"time"

	"golang.org/x/time/rate"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// MaxRetryBackoff caps the delay before a reconcile that failed is tried again: once an outage
// of the API server, the engine or the registry ends, every controller is back within it.
const MaxRetryBackoff = 30 * time.Second

// RetryLimiter is the workqueue rate limiter of every controller: per request 5 ms, doubling
// with each failure up to MaxRetryBackoff (controller-runtime's default climbs to 1000 s, so
// recovery after a long outage took up to about 16 minutes), and overall 10 per second with
// bursts of 100, as controller-runtime's default.
func RetryLimiter() workqueue.TypedRateLimiter[reconcile.Request] {
	return workqueue.NewTypedMaxOfRateLimiter(
		workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](5*time.Millisecond, MaxRetryBackoff),
		&workqueue.TypedBucketRateLimiter[reconcile.Request]{Limiter: rate.NewLimiter(rate.Limit(10), 100)},
	)
}
