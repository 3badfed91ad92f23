package app_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEngineProjectDigestIsParsedAndRequired(t *testing.T) {
	t.Parallel()
	assert.Equal(t, strings.Repeat("1", 64), parse(t, chartArgs...).EngineProjectDigest)
	var without []string
	for _, a := range chartArgs {
		if !strings.HasPrefix(a, "--engine-project-digest=") {
			without = append(without, a)
		}
	}
	err := parse(t, without...).Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--engine-project-digest is required")
	for _, bad := range []string{"abc", "sha256:" + strings.Repeat("1", 64), strings.Repeat("A", 64)} {
		err := parseError("--engine-project-digest=" + bad)
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "is not a SHA-256 digest in lowercase hex")
	}
}
