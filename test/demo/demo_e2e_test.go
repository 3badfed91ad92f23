//go:build e2e

package main

import (
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/NVIDIA/aicr/test/e2e/cluster"
)

// TestDemoWalkthroughRealArgoCD runs the walkthrough with Argo CD's own application controller
// and repo server: Synced and Healthy come from Argo CD, which renders the stand-in
// charts from the runtime registry into Deployments that kwok runs on the demo's nodes.
func TestDemoWalkthroughRealArgoCD(t *testing.T) {
	text := walkthrough(t, "real", 15*time.Minute, "--benchmark-app-of-apps")
	assert.Contains(t, text, "Start Argo CD "+cluster.ArgoCDVersion)
	assert.Regexp(t, `(?m)^\s+\$ kubectl -n \S+ rollout restart deployment nvidia-dra-driver-gpu\S* \(the DRA kubelet plugin's stand-in\)$`, text,
		"the DRA driver's workload restarts before the acknowledgement")
	// Every upstream release of the final plan (the first render's 14 less the removed one)
	// runs its stand-in Deployment, created by Argo CD and made available on a kwok node.
	assert.Len(t, regexp.MustCompile(`(?m)^\s+\| \S+\s+\S+\s+1/1$`).FindAllString(text, -1), 11)
	assert.NotRegexp(t, `(?m)^\s+\| \S+\s+\S+\s+0/1$`, text)
	assert.NotRegexp(t, `(?m)^\s+\| kube-system\s+aws-ebs-csi-driver\s`, text, "Argo CD deleted the removed release's workload")
	// nvidia-dra-driver-gpu's values null controller.affinity.nodeAffinity, a default of its
	// stand-in chart: Argo CD passes the null to Helm, which removes the default.
	assert.Regexp(t, `(?m)^\s+explicit nulls: chart defaults left in the 11 live values ConfigMaps: none$`, text)
	assert.Contains(t, text, "the live values of kai-scheduler.kai-scheduler hold handEdited=true")
	assert.Contains(t, text, "the operator's write of kai-scheduler.kai-scheduler removed the hand-edited handEdited, from the Application and the live values")
	assert.Regexp(t, `(?m)^\s+Deployment gpu-operator/gpu-operator: 3 replicas by hand, Argo CD restored the chart's 1 after \d+s$`, text)
	// Every release's live objects are what helm template renders from its chart and values.
	assert.Regexp(t, `(?m)^\s+helm template of every Application's chart and values against the cluster: 25 objects of 14 releases, differences: none$`, text)
	// The per-step times of the initial install and of the approved rollout, one row per release.
	assert.Regexp(t, `(?m)^\s+\| 15\s+nvsentinel\.nvsentinel\s+\d+s\s+-?\d+s$`, text)
	assert.Regexp(t, `(?m)^\s+\| 14\s+nvsentinel\.nvsentinel\s+(\d+s|no sync: healthy since before the write)\s+-?\d+s$`, text)
	// The Remove step: Argo CD deletes the release's resources because the operator set the
	// resources finalizer in that step, and only then (no other Application carries it).
	assert.Regexp(t, `(?m)^\s+Remove argocd/kube-system\.aws-ebs-csi-driver: resources finalizer before the step: false; `+
		`set by aicr-operator at \S+ with 2 live objects of the release, Application deleted at \S+; `+
		`Argo CD deleted the objects from \S+ and removed the Application at \S+ with 0 left$`, text)
	assert.Regexp(t, `(?m)^\s+Applications carrying the resources finalizer outside a Remove step: none$`, text)
	// A Degraded release (kwok crash-loops gpu-operator's upgraded pods) stalls the rollout with
	// the seed's message at the step timeout; the steps after it never start; a retry after the
	// fix rolls out.
	assert.Regexp(t, `(?m)^\s+runtime Ready=False RollingOut: rollout (rollout-\S+) stalled: rollout rollout-\S+ failed: `+
		`step 9/15 gpu-operator \(Upgrade\) not ready within 45s: the engine last reported synced, health Degraded `+
		`\(a resource of the release is Degraded: argocd app get argocd/gpu-operator\.gpu-operator shows which\)$`, text)
	assert.Regexp(t, `(?m)^\s+runtime Stalled=True RolloutFailed: rollout rollout-\S+ failed: step 9/15 gpu-operator`, text)
	assert.Regexp(t, `(?m)^\s+rollout rollout-\S+: 7 ready, 1 removed, failed: gpu-operator, not started: 6$`, text)
	assert.Regexp(t, `(?m)^\s+retry: rollout rollout-\S+-2 awaits approval$`, text)
	// What a watch of the Applications measured of the operator's install, and its memory after.
	assert.Regexp(t, `(?m)^\s+the install as a watch of the Applications in this process saw it: 15 steps in \S+, the operator's CPU time \S+ \(\d+\.\d%\); `+
		`from a step ready \(synced, Healthy\) to the next step's Application created: median -?\S+, p95 -?\S+$`, text)
	assert.Regexp(t, `(?m)^\s+the operator process's memory after the install: RSS \d+\.\d MiB, peak \d+\.\d MiB \(anonymous \d+\.\d, file-mapped \d+\.\d\)$`, text)
	// The benchmark against the app-of-apps, on the same cluster.
	assert.Regexp(t, `(?m)^\s+initial install of 15 releases: the operator \d+s, the app-of-apps with sync waves \d+s, `+
		`ratio operator/app-of-apps \d+\.\d\d$`, text)
}
