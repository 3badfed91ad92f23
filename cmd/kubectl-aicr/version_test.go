package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestVersionOf: a version set at build time wins; otherwise a go install @version build
// reports its module version, and a build from a checkout stays "dev".
func TestVersionOf(t *testing.T) {
	t.Parallel()
	installed := &debug.BuildInfo{Main: debug.Module{Path: "github.com/NVIDIA/aicr", Version: "v0.1.0"}}
	checkout := &debug.BuildInfo{Main: debug.Module{Path: "github.com/NVIDIA/aicr", Version: "(devel)"}}
	cases := []struct {
		name, set string
		info      *debug.BuildInfo
		ok        bool
		want      string
	}{
		{"set at build time", "v0.2.0", installed, true, "v0.2.0"},
		{"installed with go install @version", "dev", installed, true, "v0.1.0"},
		{"built from a checkout", "dev", checkout, true, "dev"},
		{"no module version recorded", "dev", &debug.BuildInfo{}, true, "dev"},
		{"no build information", "dev", nil, false, "dev"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, c.want, versionOf(c.set, c.info, c.ok))
		})
	}
}
