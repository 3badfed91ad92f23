package enginetest

import (
	"context"
	"testing"

	"github.com/NVIDIA/aicr/ports"
)

// Observation is the state a harness makes the engine's controller report
// for one release, in engine-neutral terms.
type Observation struct {
	// Synced: the engine applied the revision the object currently asks for.
	Synced bool
	// Health of the release's workloads.
	Health ports.Health
	// Operation is the state of the last sync operation.
	Operation ports.OperationState
	// Message is the engine's detail for a failed operation or bad health.
	Message string
}

// Instance is one engine under test and the count of its writes.
type Instance struct {
	// Engine is the implementation under test.
	Engine ports.DeploymentEngine
	// Writes returns how many create, update, patch and delete requests this
	// engine instance has sent to its backend so far.
	Writes func() int
}

// Harness adapts one DeploymentEngine implementation to the suite. All
// methods must be safe for concurrent use: subtests run in parallel, each on
// its own release namespace.
type Harness interface {
	// NewInstance returns a fresh engine over the shared backend, with its own
	// write counter. The engine's project or tenant exists, so Check passes.
	NewInstance(t *testing.T) Instance
	// Observe plays the engine's controller: it makes the engine object of
	// ref report o for the spec the object currently carries.
	Observe(ctx context.Context, ref ports.ReleaseRef, o Observation) error
	// CreateForeign creates an engine object for ref that the operator did
	// not write (no ownership annotations), as an administrator would.
	CreateForeign(ctx context.Context, ref ports.ReleaseRef) error
	// CascadeGuarded reports whether the engine object of ref carries the
	// engine's cascade-deletion guard (for Argo CD the resources finalizer).
	// It must be false for a missing object.
	CascadeGuarded(ctx context.Context, ref ports.ReleaseRef) (bool, error)
	// CompleteRemoval plays the engine's controller finishing a cascading
	// delete, so the engine object disappears.
	CompleteRemoval(ctx context.Context, ref ports.ReleaseRef) error
	// StoredValues returns the Helm values the engine object carries, as the
	// engine will hand them to Helm.
	StoredValues(ctx context.Context, ref ports.ReleaseRef) (map[string]any, error)
}
