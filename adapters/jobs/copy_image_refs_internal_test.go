package jobs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/domain"
)

// TestCopyImageRefs: the file AICR published is copied into the termination log in place (the
// kubelet's bind mount keeps its inode); a missing file, a link, an empty file and one over
// MaxImageRefsBytes are refused, and the failure record classifies as AICR's INTERNAL.
func TestCopyImageRefs(t *testing.T) {
	t.Parallel()
	digest := "sha256:" + strings.Repeat("a", 64) + "\n"
	for _, tc := range []struct {
		name    string
		prepare func(t *testing.T, src string)
		want    string // what the termination log holds; "" when the copy fails
		refused string
	}{
		{name: "the published digest", prepare: writeFile(digest), want: digest},
		{name: "no file", prepare: func(*testing.T, string) {}, refused: "wrote no --image-refs file"},
		{name: "a link", prepare: func(t *testing.T, src string) {
			target := filepath.Join(filepath.Dir(src), "elsewhere")
			require.NoError(t, os.WriteFile(target, []byte(digest), 0o600))
			require.NoError(t, os.Symlink(target, src))
		}, refused: "not a regular file"},
		{name: "an empty file", prepare: writeFile(""), refused: "holds 0 bytes"},
		{name: "a file over the bound", prepare: writeFile(strings.Repeat("x", MaxImageRefsBytes+1)), refused: "holds 1025 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			src, dst := filepath.Join(dir, "digest"), filepath.Join(dir, "termination-log")
			tc.prepare(t, src)
			require.NoError(t, os.WriteFile(dst, nil, 0o666))
			before, err := os.Stat(dst)
			require.NoError(t, err)
			err = CopyImageRefs(src, dst)
			got, rerr := os.ReadFile(dst)
			require.NoError(t, rerr)
			if tc.refused != "" {
				require.ErrorContains(t, err, tc.refused)
				assert.Empty(t, got)
				exit := domain.ClassifyAICRExit(CopyFailedExitCode, FailureRecord(err))
				require.NotNil(t, exit.Stall)
				assert.Equal(t, domain.StallAICRInternal, exit.Stall.Reason())
				assert.Contains(t, exit.Stall.Message(), tc.refused)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(got))
			after, err := os.Stat(dst)
			require.NoError(t, err)
			assert.True(t, os.SameFile(before, after), "the termination log is written in place, not replaced")
		})
	}
}

func writeFile(content string) func(t *testing.T, src string) {
	return func(t *testing.T, src string) {
		require.NoError(t, os.WriteFile(src, []byte(content), 0o600))
	}
}
