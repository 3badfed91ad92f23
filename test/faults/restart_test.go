package faults_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A boundary is the write after which a resolver stage is done and the next not begun.
type boundary struct {
	name           string
	verb, resource string
	namespace      string
	prefix         string
}

// stageBoundaries are the resolver's stage boundaries of an install, in order.
var stageBoundaries = []boundary{
	{"snapshot Job created", "create", "jobs", discoveryNS, "aicr-snapshot-"},
	{"snapshot kept", "create", "configmaps", operatorNS, "aicr-snapshot-"},
	{"snapshot sealed", "patch", "configmaps", operatorNS, "aicr-snapshot-"},
	{"snapshot Job deleted", "delete", "jobs", discoveryNS, "aicr-snapshot-"},
	{"recipe Job created", "create", "jobs", jobNS, "aicr-recipe-"},
	{"recipe kept", "create", "configmaps", operatorNS, "aicr-recipe-"},
	{"recipe sealed", "patch", "configmaps", operatorNS, "aicr-recipe-"},
	{"bundle Job created", "create", "jobs", jobNS, "aicr-bundle-"},
	{"bundle Job deleted", "delete", "jobs", jobNS, "aicr-bundle-"},
	{"values written", "create", "configmaps", operatorNS, "aicr-values-"},
	{"plan written, status not yet", "create", "configmaps", operatorNS, "aicr-plan-"},
}

// TestKillAtStageBoundary stops the operator right after each resolver stage boundary's write
// was answered (before it could record anything else) and starts a new one: it finishes with
// the plan of the run without a fault, every stage's Job and result written once (RES-7, PLAN-5).
func TestKillAtStageBoundary(t *testing.T) {
	base := baseline(t)
	for _, b := range stageBoundaries {
		t.Run(b.name, func(t *testing.T) {
			w := newWorld(t)
			first := w.start("operator-1", processOptions{})
			killed := make(chan write, 1)
			w.faults.onWrite(&hook{verb: b.verb, resource: b.resource, namespace: b.namespace, match: func(name string) bool {
				return strings.HasPrefix(name, b.prefix)
			}, run: func(x write) {
				first.cancel()
				killed <- x
			}})
			uid := w.createRuntime()
			select {
			case <-killed:
			case <-time.After(waitFor):
				require.FailNow(t, "the boundary was never reached")
			}
			first.stop()
			w.start("operator-2", processOptions{})
			w.waitInstalled(base.digest)
			assertInstalled(t, base.digest, uid)
			assertCreatedOnce(t, w.faults.recorded(), base.creates)
			assertNoStageJobs(t)
		})
	}
}

// assertNoStageJobs wants every resolver stage Job deleted once the plan is installed (RES-7),
// also one whose result was kept or recorded just before the operator stopped.
func assertNoStageJobs(t *testing.T) {
	t.Helper()
	left := func() []string {
		var names []string
		for _, ns := range []string{jobNS, discoveryNS} {
			var js batchv1.JobList
			if err := k8s.List(context.Background(), &js, client.InNamespace(ns)); err != nil {
				return []string{err.Error()}
			}
			for _, j := range js.Items {
				if j.DeletionTimestamp == nil {
					names = append(names, j.Namespace+"/"+j.Name)
				}
			}
		}
		return names
	}
	if !assert.Eventually(t, func() bool { return len(left()) == 0 }, 10*time.Second, tick, "stage Jobs deleted") {
		t.Logf("stage Jobs left behind: %v", left())
	}
}
