package faults_test

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/argocd"
	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
)

// stopArgoCDAt is the Application create (counted from 1) after whose answer Argo CD's stand-in
// stops: a few steps are done by then.
const stopArgoCDAt = 3

// waitingOnApplication matches the rollout's message while a step waits on an Application that
// Argo CD no longer reports on: the Application, since when and the step timeout's bound.
var waitingOnApplication = regexp.MustCompile(`^rollout \S+: step \d+/\d+ \S+ \(Install\): waiting since (\S+) for ` +
	`Application ` + argocd.DefaultNamespace + `/(\S+) to report the step's revision synced and healthy ` +
	`\(step timeout 15m0s, fails at (\S+)\)$`)

// stopArgoCDMidRollout starts the operator, stops Argo CD's stand-in right after the operator
// created the stopArgoCDAt-th Application, creates the runtime and returns the rollout's
// message once a step waits on an Application, with its match of waitingOnApplication.
func stopArgoCDMidRollout(t *testing.T, w *world) (*aicrv1alpha1.RuntimeRollout, []string) {
	t.Helper()
	creates := 0
	stopped := make(chan struct{})
	w.faults.onWrite(&hook{verb: "create", resource: "applications", namespace: argocd.DefaultNamespace,
		match: func(string) bool { creates++; return creates == stopArgoCDAt },
		run: func(write) {
			w.stopArgoCD()
			close(stopped)
		}})
	w.start("operator", processOptions{})
	w.createRuntime()
	select {
	case <-stopped:
	case <-time.After(waitFor):
		require.FailNow(t, "the operator never created the Application after which Argo CD stops")
	}
	var ro *aicrv1alpha1.RuntimeRollout
	var m []string
	require.Eventually(t, func() bool {
		var list aicrv1alpha1.RuntimeRolloutList
		if k8s.List(context.Background(), &list) != nil || len(list.Items) != 1 {
			return false
		}
		ro = &list.Items[0]
		m = waitingOnApplication.FindStringSubmatch(ro.Status.Message)
		if m == nil {
			return false
		}
		// An Application Argo CD never settled: the step waits until Argo CD is back.
		app := &argov1.Application{}
		return k8s.Get(context.Background(), client.ObjectKey{Namespace: argocd.DefaultNamespace, Name: m[2]}, app) == nil &&
			app.Status.Health.Status == ""
	}, waitFor, tick, "a step waits on an Application Argo CD no longer reports on, and its message says so")
	t.Logf("while Argo CD is down: %s", ro.Status.Message)
	assert.Equal(t, w.clock.Now().UTC().Format(time.RFC3339), m[1], "the step waits since it started")
	assert.Equal(t, w.clock.Now().Add(domain.DefaultActionTimeout).UTC().Format(time.RFC3339), m[3], "the bound")
	return ro, m
}

// TestArgoCDStopsMidStepAndComesBackWithinTheBound: Argo CD's application controller stops
// while a rollout runs. The step in flight waits, its message naming the Application, since
// when and the step timeout with the time it runs out; it is still waiting 14 minutes later
// (within the 15-minute bound), and once Argo CD runs again the rollout resumes and succeeds,
// no object created twice.
func TestArgoCDStopsMidStepAndComesBackWithinTheBound(t *testing.T) {
	w := newWorld(t)
	ro, m := stopArgoCDMidRollout(t, w)
	w.clock.Step(14 * time.Minute)
	require.Eventually(t, func() bool {
		got := &aicrv1alpha1.RuntimeRollout{}
		return k8s.Get(context.Background(), clientKey(ro.Name), got) == nil && got.Labels[aicrv1alpha1.LabelOutcome] == "" &&
			got.Status.Message == ro.Status.Message
	}, waitFor, tick, "14 minutes later the step still waits, its message unchanged")

	back := time.Now()
	w.stopArgoCD = w.startArgoCD()
	w.waitOutcome(ro.Name, aicrv1alpha1.PhaseSucceeded)
	t.Logf("recovery: rollout succeeded %s after Argo CD came back (Application %s waited on)",
		time.Since(back).Round(time.Millisecond), m[2])
	_, twice := created(w.faults.recorded())
	assert.Empty(t, twice, "objects created twice")
}

// TestArgoCDStaysDownPastTheStepTimeout: Argo CD's application controller stops while a rollout
// runs and does not come back. The step waits with its bound in its message, then fails at the
// step timeout naming the step and what Argo CD last reported; no later step starts.
func TestArgoCDStaysDownPastTheStepTimeout(t *testing.T) {
	w := newWorld(t)
	ro, m := stopArgoCDMidRollout(t, w)
	w.clock.Step(domain.DefaultActionTimeout + time.Second)
	done := w.waitOutcome(ro.Name, aicrv1alpha1.PhaseFailed)
	t.Logf("past the bound: %s", done.Status.Message)
	assert.Regexp(t, `step \d+/\d+ \S+ \(Install\) not ready within 15m0s: the engine last reported `, done.Status.Message)
	apps := 0
	for _, x := range w.faults.recorded() {
		if x.resource == "applications" && x.verb == "create" && x.code == 201 {
			apps++
			assert.LessOrEqual(t, apps, stopArgoCDAt+1, "no step after the one that waited starts: %s", x.name)
		}
	}
	assert.Contains(t, []int{stopArgoCDAt, stopArgoCDAt + 1}, apps, "the Application waited on, %s, is the last created", m[2])
}

// clientKey is the key of the cluster-scoped object name.
func clientKey(name string) client.ObjectKey { return client.ObjectKey{Name: name} }

// waitOutcome waits until the rollout name ended in phase and returns it.
func (w *world) waitOutcome(name string, phase aicrv1alpha1.Phase) *aicrv1alpha1.RuntimeRollout {
	w.t.Helper()
	ro := &aicrv1alpha1.RuntimeRollout{}
	require.Eventually(w.t, func() bool {
		return k8s.Get(context.Background(), clientKey(name), ro) == nil && ro.Labels[aicrv1alpha1.LabelOutcome] == string(phase) &&
			ro.Status.Phase == phase
	}, waitFor, tick, "rollout %s ends %s, its status written", name, phase)
	return ro
}
