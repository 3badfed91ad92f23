package domain_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nvidia/aicr-operator/domain"
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
		rendered := p.String()
		if c != "" {
			rendered = domain.OverridePath{c}.String() + ":" + rendered
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
