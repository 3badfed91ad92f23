package app_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestMetricsAreSecureByDefault: the operator serves authenticated HTTPS metrics unless
// --metrics-secure=false says otherwise, so an operator started without the chart's flags is
// not open either (OPS-2).
func TestMetricsAreSecureByDefault(t *testing.T) {
	t.Parallel()
	assert.True(t, parse(t).MetricsSecure, "OPS-2 secure without the flag")
	assert.True(t, parse(t, "--metrics-secure=true").MetricsSecure)
	assert.False(t, parse(t, "--metrics-secure=false").MetricsSecure, "OPS-2 the flag chooses plain HTTP")
}
