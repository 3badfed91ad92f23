// Package enginetest is the conformance suite every ports.DeploymentEngine
// implementation runs (ENG-5): one call to Run from the adapter's own tests.
//
// # Adding an engine: a walkthrough
//
//  1. Read the contract on ports.DeploymentEngine (ports/deployment_engine.go)
//     and the value types in ports/release.go. The domain never sees your
//     engine's types: Apply receives a ports.ReleaseSpec, Status returns a
//     ports.ReleaseStatus, every failure wraps one of the sentinels of
//     ports/errors.go with %w.
//  2. Write adapters/<engine> with NewEngine returning a concrete *Engine and
//     a compile-time assertion var _ ports.DeploymentEngine = (*Engine)(nil).
//     Record the ReleaseOwner on every object you write and refuse
//     (ErrForeignObject) to touch an object that does not record the
//     caller's runtime UID. Map your engine's status strings onto
//     ports.Health and ports.OperationState in one function with a table
//     test; unknown strings map to HealthUnknown.
//  3. Implement Harness in a _test.go file of your adapter: it builds engines
//     over one shared backend (envtest with your engine's CRDs), counts each
//     engine's writes, and plays your engine's controller (Observe,
//     CompleteRemoval), since the real controller does not run in tests.
//  4. Call enginetest.Run(t, harness) from a test. Every subtest uses its
//     own release namespace, so they run in parallel on one backend.
//  5. Add your provider to the composition root's wire set and to the
//     engine switch of app.Config.
//
// The Argo CD adapter's harness (adapters/argocd/conformance_test.go) is the
// reference implementation.
package enginetest
