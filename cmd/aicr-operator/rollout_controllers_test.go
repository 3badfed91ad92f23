package main

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/app"
)

// TestRolloutOptionsCarryTheRolloutTimings: --step-timeout, --component-step-timeout,
// --rollout-window and --admission-digests reach the rollout and runtime controllers' options.
func TestRolloutOptionsCarryTheRolloutTimings(t *testing.T) {
	t.Parallel()
	cfg := app.Config{
		StepTimeout: 30 * time.Minute, RolloutWindow: 48 * time.Hour,
		ComponentStepTimeouts: map[string]time.Duration{"gpu-operator": 2 * time.Hour},
	}
	digests := admissionDigests{"aicr-operator-plans": strings.Repeat("a", 64)}
	o := rolloutOptions(cfg, digests, nil)
	assert.Equal(t, 30*time.Minute, o.ActionTimeout)
	assert.Equal(t, 48*time.Hour, o.RolloutWindow)
	assert.Equal(t, map[string]time.Duration{"gpu-operator": 2 * time.Hour}, o.ComponentTimeouts)
	assert.Equal(t, map[string]string(digests), o.AdmissionDigests)
	assert.Equal(t, shared.ChartAdmissionPolicies, o.AdmissionPolicies)
}

// TestAdmissionDigestsNameEveryChartPolicy: the operator does not start with a digest missing
// for a policy it relies on, nor with one for a policy it does not know.
func TestAdmissionDigestsNameEveryChartPolicy(t *testing.T) {
	t.Parallel()
	all := map[string]string{}
	for _, name := range shared.ChartAdmissionPolicies {
		all[name] = strings.Repeat("a", 64)
	}
	got, err := provideAdmissionDigests(app.Config{AdmissionDigests: all})
	require.NoError(t, err)
	assert.Equal(t, admissionDigests(all), got)

	missing := maps.Clone(all)
	delete(missing, "aicr-operator-status")
	_, err = provideAdmissionDigests(app.Config{AdmissionDigests: missing})
	require.EqualError(t, err, "--admission-digests lacks the digest of aicr-operator-status: install the chart of this operator's release")

	extra := maps.Clone(all)
	extra["aicr-operator-other"] = strings.Repeat("b", 64)
	_, err = provideAdmissionDigests(app.Config{AdmissionDigests: extra})
	require.EqualError(t, err, "--admission-digests names aicr-operator-other, which this operator does not check: install the chart of this operator's release")
}
