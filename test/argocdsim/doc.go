// Package argocdsim is a test-only double of Argo CD's application controller:
// it writes the status Argo CD would write on the
// operator's Applications, so engine and rollout tests run on a real API
// server without Argo CD.
//
// It is deterministic: nothing happens until a test calls Settle, SettleAll
// or FinishDeletion, or registers the simulator as a controller-runtime
// reconciler with SetupWithManager (then every Application event settles
// that Application). It never sleeps and takes every timestamp from a
// ports.Clock.
//
// Each Application settles according to its Mode (default Healthy):
// Healthy, Degraded, Progressing (never settles), OutOfSync (a sync ran but
// the live state drifted again), SyncFailed and Syncing (an operation that
// keeps running). Like Argo CD's automated sync, it does not sync again a
// source whose last sync failed until the spec changes or an operation is
// requested (Application.operation), which it then runs, records and
// clears. Not modelled: sync retries inside an operation, hooks, waves.
package argocdsim
