package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/NVIDIA/aicr/app"
)

// TestRolloutOptionsCarryTheRolloutTimings: --step-timeout, --component-step-timeout and
// --rollout-window reach the rollout and runtime controllers' options.
func TestRolloutOptionsCarryTheRolloutTimings(t *testing.T) {
	t.Parallel()
	cfg := app.Config{
		StepTimeout: 30 * time.Minute, RolloutWindow: 48 * time.Hour,
		ComponentStepTimeouts: map[string]time.Duration{"gpu-operator": 2 * time.Hour},
	}
	o := rolloutOptions(cfg, nil)
	assert.Equal(t, 30*time.Minute, o.ActionTimeout)
	assert.Equal(t, 48*time.Hour, o.RolloutWindow)
	assert.Equal(t, map[string]time.Duration{"gpu-operator": 2 * time.Hour}, o.ComponentTimeouts)
}
