package domain_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/domain"
)

func TestParseOverridePath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in        string
		component string
		path      domain.OverridePath
	}{
		{"driver.version", "", domain.OverridePath{"driver", "version"}},
		{"gpuoperator:driver.version", "gpuoperator", domain.OverridePath{"driver", "version"}},
		{`podAnnotations.prometheus\.io/scrape`, "", domain.OverridePath{"podAnnotations", "prometheus.io/scrape"}},
		{`a\\b.c\:d`, "", domain.OverridePath{`a\b`, "c:d"}},
	}
	for _, tt := range tests {
		c, p, err := domain.ParseOverridePath(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.component, c)
		assert.Equal(t, tt.path, p)
	}
	for _, bad := range []string{"", ".a", "a.", "a..b", `a\`, "a:b:c", ":a", "a.b:c", "a\nb"} {
		_, _, err := domain.ParseOverridePath(bad)
		assert.ErrorIs(t, err, domain.ErrInvalidOverridePath, "%q", bad)
	}
}

func FuzzParseOverridePath(f *testing.F) {
	for _, s := range []string{"driver.version", "gpuoperator:driver.version", `a\.b.c`, `x\\:y`, "a..b", ":"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, p, err := domain.ParseOverridePath(s)
		if err != nil {
			require.ErrorIs(t, err, domain.ErrInvalidOverridePath)
			return
		}
		require.NotEmpty(t, p)
		for _, k := range p {
			require.NotEmpty(t, k)
		}
		// Round trip: rendering and parsing again yields the same keys.
		rendered := renderOverridePath(p)
		if c != "" {
			rendered = renderOverridePath(domain.OverridePath{c}) + ":" + rendered
		}
		if len(rendered) > domain.MaxOverridePathLength {
			return
		}
		c2, p2, err := domain.ParseOverridePath(rendered)
		require.NoError(t, err, "rendered %q", rendered)
		require.Equal(t, c, c2)
		require.Equal(t, p, p2)
	})
}

// TestUnlistedComponents: names the recipe does not list are returned once
// each, in spec order, for AICR to accept as aliases or reject (RES-3).
func TestUnlistedComponents(t *testing.T) {
	got := domain.UnlistedComponents([]domain.Override{
		{Component: "gpuoperator", Path: "driver.version"},
		{Component: "gpu-operator", Path: "driver.repository"},
		{Component: "nosuch", Path: "a"},
		{Component: "gpuoperator", Path: "driver.enabled"},
	}, map[string]bool{"gpu-operator": true})
	assert.Equal(t, []string{"gpuoperator", "nosuch"}, got)
	assert.Empty(t, domain.UnlistedComponents(nil, map[string]bool{"gpu-operator": true}))
}

// TestRejectedOverride: only an AICRInvalidRequest whose message names an
// unlisted component as a whole word becomes OverridePathUnknown (RES-3).
func TestRejectedOverride(t *testing.T) {
	invalid := func(msg string) *domain.Stall {
		return domain.StallFromCondition(string(domain.StallAICRInvalidRequest), msg)
	}
	for _, tc := range []struct {
		name     string
		stall    *domain.Stall
		unlisted []string
		want     domain.StallReason
	}{
		{"named unlisted component", invalid(`invalid --set-json "nosuch:a=1": unknown component "nosuch"`), []string{"nosuch"},
			domain.StallOverridePathUnknown},
		{"named at the end of the message", invalid(`unknown component nosuch`), []string{"nosuch"}, domain.StallOverridePathUnknown},
		{"only inside a longer name", invalid(`unknown component "gpu-operator-x"`), []string{"gpu-operator"}, domain.StallAICRInvalidRequest},
		{"only as a prefix of a longer name", invalid(`unknown component "xgpu"`), []string{"gpu"}, domain.StallAICRInvalidRequest},
		{"no unlisted component", invalid(`unknown component "nosuch"`), nil, domain.StallAICRInvalidRequest},
		{"another reason", domain.StallFromCondition(string(domain.StallAICRInternal), `nosuch`), []string{"nosuch"}, domain.StallAICRInternal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := domain.RejectedOverride(tc.stall, tc.unlisted)
			assert.Equal(t, tc.want, got.Reason())
			if tc.want == domain.StallOverridePathUnknown {
				assert.Contains(t, got.Message(), `"`+tc.unlisted[0]+`"`)
				assert.Contains(t, got.Message(), tc.stall.Message(), "AICR's own words are kept")
			} else {
				assert.Same(t, tc.stall, got)
			}
		})
	}
	assert.Nil(t, domain.RejectedOverride(nil, []string{"nosuch"}))
}

// renderOverridePath renders p so that domain.ParseOverridePath returns it unchanged: each
// key's '.', '\\' and ':' escaped with a backslash, the keys joined by '.'.
func renderOverridePath(p domain.OverridePath) string {
	parts := make([]string, len(p))
	for i, k := range p {
		var b strings.Builder
		for j := 0; j < len(k); j++ {
			if c := k[j]; c == '.' || c == '\\' || c == ':' {
				b.WriteByte('\\')
			}
			b.WriteByte(k[j])
		}
		parts[i] = b.String()
	}
	return strings.Join(parts, ".")
}
