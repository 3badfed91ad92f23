package manager

import (
	"context"
	"errors"
	"net/http"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/healthz"
)

// cacheProbeWait bounds how long one readiness probe waits for the caches: within the
// kubelet's default probe timeout of one second.
const cacheProbeWait = 500 * time.Millisecond

// errCachesNotSynced fails the readiness probe of a replica whose caches have not synced.
var errCachesNotSynced = errors.New("the operator's caches have not synced with the API server")

// syncWaiter is the part of the manager's cache the readiness probe asks.
type syncWaiter interface {
	WaitForCacheSync(ctx context.Context) bool
}

// cachesSynced is the readiness check: it fails until the cache has started and every informer
// in it has synced, and again while one added later (the engine's kind, once served) has not,
// so a replica that would decide on partial reads is not reported ready. A standby replica
// with synced caches is ready: it takes over as soon as the lease is free, and holding its
// readiness until it leads would keep a rolling update waiting for a replica that can lead
// only once the old one is gone. Leadership is reported by the leader election metrics.
func cachesSynced(c syncWaiter) healthz.Checker {
	return func(req *http.Request) error {
		ctx, cancel := context.WithTimeout(req.Context(), cacheProbeWait)
		defer cancel()
		if !c.WaitForCacheSync(ctx) {
			return errCachesNotSynced
		}
		return nil
	}
}
