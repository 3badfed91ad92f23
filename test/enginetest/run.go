package enginetest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/ports"
)

// runs numbers the calls of Run in one test binary, so go test -count=N finds no object an
// earlier run left in the engine.
var runs atomic.Int64

// Run runs the conformance suite against the engine h builds. Subtests run
// in parallel, each with its own release namespace, new on every run.
func Run(t *testing.T, h Harness) {
	t.Helper()
	run := runs.Add(1)
	cases := []struct {
		name string
		run  func(t *testing.T, h Harness, ns string)
	}{
		{"Check", testCheck},
		{"CreateRecordsOwner", testCreate},
		{"UpdateToNewRevision", testUpdate},
		{"IdempotentApply", testIdempotent},
		{"StatusMapping", testStatusMapping},
		{"ForeignObjectRefused", testForeign},
		{"OtherRuntimeRefusedUntilAdopted", testOtherRuntime},
		{"RemoveGuardsOnlyDuringRemove", testRemove},
		{"NullValuesSurvive", testNullValues},
		{"SpecsRoundTrip", testSpecsRoundTrip},
		{"Suspend", testSuspend},
		{"ListSorted", testList},
		{"MissingTarget", testMissing},
		{"SpecDigest", testSpecDigest},
	}
	for _, c := range cases {
		ns := fmt.Sprintf("ct%d-%s", run, strings.ToLower(c.name))
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, h, ns)
		})
	}
}

// Owners used by the suite.
var (
	ownerA = ports.ReleaseOwner{RuntimeUID: "0a7c1f52-0000-4000-8000-00000000000a", PlanDigest: "sha256:plan-a", Rollout: "rollout-a-1"}
	ownerB = ports.ReleaseOwner{RuntimeUID: "0a7c1f52-0000-4000-8000-00000000000b", PlanDigest: "sha256:plan-b", Rollout: "rollout-b-1"}
)

// digest returns a well-formed manifest digest derived from seed.
func digest(seed string) string {
	sum := sha256.Sum256([]byte(seed))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// spec returns a pinned upstream release of chart version rev.
func spec(ns, id, rev string, owner ports.ReleaseOwner) ports.ReleaseSpec {
	return ports.ReleaseSpec{
		Ref: ports.ReleaseRef{ID: id, Namespace: ns},
		Chart: ports.ChartSource{
			Repository: "https://charts.example.com/stable", Name: id, Version: rev, ManifestDigest: digest(id + rev),
		},
		Values:    map[string]any{"replicas": 2, "image": map[string]any{"tag": "24.04"}, "enabled": true},
		Policy:    ports.EnginePolicy{CreateNamespace: true, ServerSideApply: true},
		DependsOn: []string{"cert-manager"},
		Owner:     owner,
	}
}

// status reads the status of ref and fails the test on error.
func status(t *testing.T, e ports.DeploymentEngine, ref ports.ReleaseRef) ports.ReleaseStatus {
	t.Helper()
	st, err := e.Status(t.Context(), ref)
	require.NoError(t, err)
	return st
}

// healthy is the observation of a release that converged.
var healthy = Observation{Synced: true, Health: ports.HealthHealthy, Operation: ports.OperationSucceeded}
