package app

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/NVIDIA/aicr/domain"
)

// addComponentStepTimeouts parses one --component-step-timeout value: comma-separated
// <component>=<duration> pairs. A pair without "=", a duration Go cannot parse or a component
// named twice is refused; names and durations are checked by Validate.
func (c *Config) addComponentStepTimeouts(s string) error {
	for _, pair := range splitList(s) {
		name, value, ok := strings.Cut(pair, "=")
		if !ok {
			return fmt.Errorf("%q must be <component>=<duration>, for example gpu-operator=2h", pair)
		}
		name = strings.TrimSpace(name)
		d, err := time.ParseDuration(strings.TrimSpace(value))
		if err != nil {
			return fmt.Errorf("component %q: %q is not a duration (for example 90m or 2h): %w", name, value, err)
		}
		if _, dup := c.ComponentStepTimeouts[name]; dup {
			return fmt.Errorf("component %q is given twice", name)
		}
		if c.ComponentStepTimeouts == nil {
			c.ComponentStepTimeouts = map[string]time.Duration{}
		}
		c.ComponentStepTimeouts[name] = d
	}
	return nil
}

// validateRollout checks the rollout timings: positive step and validation timeouts, component
// names that are Helm release names, and a rollout window longer than the longest step timeout (a step
// could otherwise never time out before the rollout's deadline).
func (c Config) validateRollout() []error {
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfig}, args...)...))
	}
	if c.StepTimeout <= 0 {
		add("--step-timeout %s must be positive (rollout.stepTimeout, default %s)", c.StepTimeout, domain.DefaultActionTimeout)
	}
	longest := c.StepTimeout
	for _, name := range slices.Sorted(maps.Keys(c.ComponentStepTimeouts)) {
		d := c.ComponentStepTimeouts[name]
		if !domain.IsHelmReleaseName(name) {
			add("--component-step-timeout %q is not a component name (lowercase letters, digits, - and ., at most %d characters)",
				name, domain.MaxReleaseIDLength)
		}
		if d <= 0 {
			add("--component-step-timeout %s=%s must be positive", name, d)
		}
		longest = max(longest, d)
	}
	if c.ValidationTimeout <= 0 {
		add("--validation-timeout %s must be positive (validation.timeout, default %s)", c.ValidationTimeout, domain.DefaultValidationTimeout)
	}
	if c.RolloutWindow <= 0 {
		add("--rollout-window %s must be positive (rollout.window, default %s)", c.RolloutWindow, domain.DefaultRolloutWindow)
	} else if c.RolloutWindow <= longest {
		add("--rollout-window %s must exceed the longest step timeout %s: raise rollout.window or lower the step timeout",
			c.RolloutWindow, longest)
	}
	return errs
}
