package faults_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// A writePath is one kind of write the operator makes: verb on resource (in namespace, for
// names that prefix accepts), and the RBAC grant it uses.
type writePath struct {
	name           string
	verb, resource string
	namespace      string
	prefix, suffix string
}

func (p writePath) match(name string) bool {
	return strings.HasPrefix(name, p.prefix) && strings.HasSuffix(name, p.suffix)
}

// writePaths are the operator's write paths an install goes through: every one gets a case
// per fault (TestWriteFaults), and TestEveryGrantedWriteHasACase fails when the operator's
// RBAC grants a write on a resource none of them covers.
var writePaths = []writePath{
	{name: "snapshot Job", verb: "create", resource: "jobs", namespace: discoveryNS, prefix: "aicr-snapshot-"},
	{name: "snapshot output ConfigMap", verb: "create", resource: "configmaps", namespace: discoveryNS, suffix: "-output"},
	{name: "snapshot inputs ConfigMap", verb: "create", resource: "configmaps", namespace: discoveryNS, suffix: "-inputs"},
	{name: "bundle push credential Secret", verb: "create", resource: "secrets", namespace: jobNS, suffix: "-registry"},
	{name: "bundle Job", verb: "create", resource: "jobs", namespace: jobNS, prefix: "aicr-bundle-"},
	{name: "Job resume", verb: "patch", resource: "jobs", namespace: jobNS},
	{name: "Job deletion", verb: "delete", resource: "jobs", namespace: jobNS},
	{name: "Job output ConfigMap", verb: "create", resource: "configmaps", namespace: jobNS, suffix: "-output"},
	{name: "Job inputs ConfigMap", verb: "create", resource: "configmaps", namespace: jobNS, suffix: "-inputs"},
	{name: "kept snapshot", verb: "create", resource: "configmaps", namespace: operatorNS, prefix: "aicr-snapshot-"},
	{name: "kept recipe result", verb: "create", resource: "configmaps", namespace: operatorNS, prefix: "aicr-recipe-"},
	{name: "plan ConfigMap", verb: "create", resource: "configmaps", namespace: operatorNS, prefix: "aicr-plan-"},
	{name: "values ConfigMap", verb: "create", resource: "configmaps", namespace: operatorNS, prefix: "aicr-values-"},
	{name: "runtime finalizer", verb: "patch", resource: "clusterruntimes"},
	{name: "runtime status", verb: "patch", resource: "clusterruntimes/status"},
	{name: "rollout", verb: "create", resource: "runtimerollouts"},
	{name: "rollout outcome label", verb: "patch", resource: "runtimerollouts"},
	{name: "rollout status", verb: "update", resource: "runtimerollouts/status"},
	{name: "Application", verb: "create", resource: "applications"},
}

// faultsOf are the faults a path gets: a lost answer only where the write is a create (an
// update or patch lost is retried against the object's new resourceVersion like any conflict).
func faultsOf(p writePath) []faultKind {
	if p.verb == "create" {
		return []faultKind{lostResponse, unavailable, throttled}
	}
	return []faultKind{serverError, throttled}
}

// run is what the install without a fault ends with.
type run struct {
	// digest is the plan it resolves to.
	digest string
	// creates are the objects it creates (see created).
	creates []string
}

var (
	baselineOnce sync.Once
	baselineRun  run
)

// baseline runs the install without a fault once and returns what it ended with.
func baseline(t *testing.T) run {
	t.Helper()
	baselineOnce.Do(func() { recordBaseline(t) })
	require.NotEmpty(t, baselineRun.digest, "the run without a fault")
	return baselineRun
}

// recordBaseline runs the install without a fault and records what it ended with.
func recordBaseline(t *testing.T) {
	w := newWorld(t)
	w.start("operator", processOptions{})
	uid := w.createRuntime()
	var cr *aicrv1alpha1.ClusterRuntime
	require.Eventually(t, func() bool {
		cr = &aicrv1alpha1.ClusterRuntime{}
		return k8s.Get(context.Background(), client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, cr) == nil &&
			cr.Status.CandidatePlanDigest != ""
	}, waitFor, tick, "the runtime resolves")
	w.waitInstalled(cr.Status.CandidatePlanDigest)
	assertInstalled(t, cr.Status.CandidatePlanDigest, uid)
	creates, twice := created(w.faults.recorded())
	require.Empty(t, twice, "the run without a fault creates nothing twice")
	baselineRun = run{digest: cr.Status.CandidatePlanDigest, creates: creates}
	w.close()
}

// TestWriteFaults injects each fault once into each write path of an install: the operator
// converges to the plan and rollout of the run without a fault, creates each object exactly
// once (a create whose answer was lost is found, not made again under another name) and
// loses nothing (the plan recorded, the status right).
func TestWriteFaults(t *testing.T) {
	base := baseline(t)
	for _, p := range writePaths {
		for _, kind := range faultsOf(p) {
			t.Run(p.name+"/"+string(kind), func(t *testing.T) {
				w := newWorld(t)
				r := &rule{verb: p.verb, resource: p.resource, namespace: p.namespace, match: p.match, fault: kind, times: 1}
				w.faults.inject(r)
				w.start("operator", processOptions{})
				uid := w.createRuntime()
				w.waitInstalled(base.digest)
				require.Equal(t, 1, w.faults.firedCount(r), "the fault was injected")
				assertInstalled(t, base.digest, uid)
				assertCreatedOnce(t, w.faults.recorded(), base.creates)
			})
		}
	}
}
