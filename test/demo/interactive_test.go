package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIsTerminalDecidesWhetherTheDemoKeepsRunning: the demo keeps its control plane running at
// the end only when standard input is a terminal. /dev/null is a character device but no
// terminal, so `make demo < /dev/null` exits; so do a pipe (CI) and a file.
func TestIsTerminalDecidesWhetherTheDemoKeepsRunning(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		open func(t *testing.T) *os.File
		want bool
	}{
		{"/dev/null, a character device, is not a terminal", func(t *testing.T) *os.File {
			f, err := os.Open(os.DevNull)
			require.NoError(t, err)
			fi, err := f.Stat()
			require.NoError(t, err)
			require.NotZero(t, fi.Mode()&os.ModeCharDevice, "the case the old check got wrong")
			return f
		}, false},
		{"a pipe is not a terminal", func(t *testing.T) *os.File {
			r, w, err := os.Pipe()
			require.NoError(t, err)
			t.Cleanup(func() { _ = w.Close() })
			return r
		}, false},
		{"a regular file is not a terminal", func(t *testing.T) *os.File {
			f, err := os.Create(filepath.Join(t.TempDir(), "stdin"))
			require.NoError(t, err)
			return f
		}, false},
		{"a pseudo-terminal is a terminal", func(t *testing.T) *os.File {
			f, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
			if err != nil {
				t.Skipf("no pseudo-terminal here: %v", err)
			}
			return f
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := c.open(t)
			t.Cleanup(func() { _ = f.Close() })
			assert.Equal(t, c.want, isTerminal(f))
		})
	}
}
