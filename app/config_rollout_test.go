package app_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/domain"
)

func TestConfigValidateRolloutTimings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		extra   []string
		want    map[string]time.Duration
		wantMsg string
	}{
		{name: "the chart's defaults are accepted"},
		{name: "a per-component timeout longer than the default is accepted",
			extra: []string{"--component-step-timeout=gpu-operator=2h"}, want: map[string]time.Duration{"gpu-operator": 2 * time.Hour}},
		{name: "repeated and comma-separated entries add up",
			extra: []string{"--component-step-timeout=gpu-operator=2h, network-operator=45m", "--component-step-timeout=dra.driver=1h"},
			want:  map[string]time.Duration{"gpu-operator": 2 * time.Hour, "network-operator": 45 * time.Minute, "dra.driver": time.Hour}},
		{name: "a zero step timeout is refused", extra: []string{"--step-timeout=0s"},
			wantMsg: "--step-timeout 0s must be positive (rollout.stepTimeout, default 15m0s)"},
		{name: "a negative step timeout is refused", extra: []string{"--step-timeout=-1m"}, wantMsg: "--step-timeout -1m0s must be positive"},
		{name: "a zero validation timeout is refused", extra: []string{"--validation-timeout=0s"},
			wantMsg: "--validation-timeout 0s must be positive (validation.timeout, default 2h0m0s)"},
		{name: "a zero rollout window is refused", extra: []string{"--rollout-window=0s"},
			wantMsg: "--rollout-window 0s must be positive (rollout.window, default 24h0m0s)"},
		{name: "a window no longer than the step timeout is refused", extra: []string{"--step-timeout=2h", "--rollout-window=2h"},
			wantMsg: "--rollout-window 2h0m0s must exceed the longest step timeout 2h0m0s"},
		{name: "a window shorter than a component's step timeout is refused",
			extra:   []string{"--rollout-window=3h", "--component-step-timeout=gpu-operator=4h"},
			wantMsg: "--rollout-window 3h0m0s must exceed the longest step timeout 4h0m0s"},
		{name: "a component that is not a Helm release name is refused", extra: []string{"--component-step-timeout=GPU_Operator=2h"},
			wantMsg: `--component-step-timeout "GPU_Operator" is not a component name`},
		{name: "a component name longer than Helm allows is refused",
			extra:   []string{"--component-step-timeout=a23456789012345678901234567890123456789012345678901234=1h"},
			wantMsg: "at most 53 characters"},
		{name: "a zero component timeout is refused", extra: []string{"--component-step-timeout=gpu-operator=0s"},
			wantMsg: "--component-step-timeout gpu-operator=0s must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := parse(t, append(append([]string{}, chartArgs...), tt.extra...)...)
			err := c.Validate()
			if tt.wantMsg == "" {
				require.NoError(t, err)
				assert.Equal(t, tt.want, c.ComponentStepTimeouts)
				return
			}
			require.ErrorIs(t, err, app.ErrInvalidConfig)
			assert.Contains(t, err.Error(), tt.wantMsg)
		})
	}
}

func TestComponentStepTimeoutSyntaxIsRefusedAtParse(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, value, wantMsg string }{
		{"a pair without =", "gpu-operator", `"gpu-operator" must be <component>=<duration>, for example gpu-operator=2h`},
		{"a duration Go cannot parse", "gpu-operator=2 hours", `component "gpu-operator": "2 hours" is not a duration`},
		{"a component named twice", "gpu-operator=1h,gpu-operator=2h", `component "gpu-operator" is given twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := parseError("--component-step-timeout=" + tt.value)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantMsg)
		})
	}
}

func TestRolloutTimingDefaultsMatchTheDomain(t *testing.T) {
	t.Parallel()
	c := parse(t)
	assert.Equal(t, domain.DefaultActionTimeout, c.StepTimeout)
	assert.Equal(t, domain.DefaultRolloutWindow, c.RolloutWindow)
	assert.Empty(t, c.ComponentStepTimeouts)
}
