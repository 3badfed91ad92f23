package argocd_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/discovery"

	"github.com/NVIDIA/aicr/adapters/argocd"
	"github.com/NVIDIA/aicr/ports"
)

func TestCheckPassesWithTheProject(t *testing.T) {
	t.Parallel()
	e, writes := newEngine(t, cp.Config, argocd.Config{})
	require.NoError(t, e.Check(t.Context()))
	assert.Zero(t, writes.Load(), "Check never mutates")
	dc, err := discovery.NewDiscoveryClientForConfig(cp.Config)
	require.NoError(t, err)
	served, err := argocd.ApplicationServed(dc)
	require.NoError(t, err)
	assert.True(t, served)
}

func TestCheckReportsProjectMissing(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, cp.Config, argocd.Config{Project: "not-there"})
	require.ErrorIs(t, e.Check(t.Context()), ports.ErrProjectMissing)
	e, _ = newEngine(t, cp.Config, argocd.Config{Namespace: "elsewhere"})
	require.ErrorIs(t, e.Check(t.Context()), ports.ErrProjectMissing)
}

// TestCheckReportsUnauthorized: an identity without RBAC on Argo CD's API
// gets 403 from the API server, mapped to ErrUnauthorized by every method.
func TestCheckReportsUnauthorized(t *testing.T) {
	t.Parallel()
	e, _ := newEngine(t, cp.Impersonate("system:serviceaccount:aicr-system:nobody"), argocd.Config{})
	require.ErrorIs(t, e.Check(t.Context()), ports.ErrUnauthorized)
	ref := ports.ReleaseRef{ID: "denied", Namespace: "denied"}
	_, err := e.Status(t.Context(), ref)
	require.ErrorIs(t, err, ports.ErrUnauthorized)
	require.ErrorIs(t, e.Apply(t.Context(), release("denied", "denied")), ports.ErrUnauthorized)
	_, err = e.List(t.Context())
	require.ErrorIs(t, err, ports.ErrUnauthorized)
}
