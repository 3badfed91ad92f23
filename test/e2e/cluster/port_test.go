package cluster

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFreePortNeverRepeats: the ports freePort hands out in one process are all different, though
// the kernel hands a port it just freed out again.
func TestFreePortNeverRepeats(t *testing.T) {
	seen := map[string]bool{}
	for range 200 {
		port, err := freePort()
		require.NoError(t, err)
		require.False(t, seen[port], "port %s handed out twice", port)
		seen[port] = true
	}
}
