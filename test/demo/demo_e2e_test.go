//go:build e2e

package main

import (
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/nvidia/aicr-operator/test/e2e/cluster"
)

// TestDemoWalkthroughRealArgoCD runs the walkthrough with Argo CD's own application controller
// and repo server (issue 16): Synced and Healthy come from Argo CD, which renders the stand-in
// charts from the runtime registry into Deployments that kwok runs on the demo's nodes.
func TestDemoWalkthroughRealArgoCD(t *testing.T) {
	text := walkthrough(t, "real", 15*time.Minute)
	assert.Contains(t, text, "Start Argo CD "+cluster.ArgoCDVersion)
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
	// The per-step times of the last rollout, one row per release of its plan.
	assert.Regexp(t, `(?m)^\s+\| 14\s+nvsentinel\.nvsentinel\s+(\d+s|no sync: healthy since before the write)\s+\d+s$`, text)
}
