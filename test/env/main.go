package env

import (
	"fmt"
	"os"
	"testing"
)

// Main is a package's TestMain body: it starts one control plane with opts for the whole
// package, calls setup with it, runs the tests, calls each teardown (for example to stop
// controllers whose watches would hold the API server's shutdown) and stops the control plane.
// It returns the exit code; a failed start or setup is reported on standard error.
func Main(m *testing.M, opts Options, setup func(*Env) error, teardown ...func()) int {
	cp, err := Start(opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() {
		if stopErr := cp.Stop(); stopErr != nil {
			fmt.Fprintln(os.Stderr, stopErr)
		}
	}()
	if err := setup(cp); err != nil {
		fmt.Fprintln(os.Stderr, "set up the control plane:", err)
		return 1
	}
	code := m.Run()
	for _, td := range teardown {
		td()
	}
	return code
}
