package app_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/app"
)

var (
	planDigest   = strings.Repeat("a", 64)
	statusDigest = strings.Repeat("b", 64)
)

func TestAdmissionDigestsAreParsed(t *testing.T) {
	t.Parallel()
	c := parse(t, append(withoutAdmissionDigests(),
		"--admission-digests=aicr-operator-plans="+planDigest+", aicr-operator-status="+statusDigest)...)
	require.NoError(t, c.Validate())
	assert.Equal(t, map[string]string{"aicr-operator-plans": planDigest, "aicr-operator-status": statusDigest}, c.AdmissionDigests)
}

func TestAdmissionDigestsAreRequired(t *testing.T) {
	t.Parallel()
	err := parse(t, withoutAdmissionDigests()...).Validate()
	require.ErrorIs(t, err, app.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "--admission-digests is required")
}

func TestAdmissionDigestSyntaxIsRefusedAtParse(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, value, wantMsg string }{
		{"a pair without =", "aicr-operator-plans", `"aicr-operator-plans" must be <policy>=<sha256 hex>`},
		{"no policy name", "=" + planDigest, `must be <policy>=<sha256 hex>`},
		{"a digest too short", "aicr-operator-plans=abc", `policy "aicr-operator-plans": "abc" is not a SHA-256 digest`},
		{"a digest with a prefix", "aicr-operator-plans=sha256:" + planDigest, `is not a SHA-256 digest in lowercase hex`},
		{"upper-case hex", "aicr-operator-plans=" + strings.ToUpper(planDigest), `is not a SHA-256 digest in lowercase hex`},
		{"a policy named twice", "aicr-operator-plans=" + planDigest + ",aicr-operator-plans=" + statusDigest,
			`policy "aicr-operator-plans" is given twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := parseError("--admission-digests=" + tt.value)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantMsg)
		})
	}
}

// withoutAdmissionDigests returns chartArgs without --admission-digests.
func withoutAdmissionDigests() []string {
	var args []string
	for _, a := range chartArgs {
		if !strings.HasPrefix(a, "--admission-digests=") {
			args = append(args, a)
		}
	}
	return args
}
