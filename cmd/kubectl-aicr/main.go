// Command kubectl-aicr is the kubectl plugin of the AICR operator
// (kubectl aicr plan|help, and later describe, approve, revoke, acknowledge,
// reproduce). All logic lives in adapters/cli.
package main

import (
	"fmt"
	"os"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/nvidia/aicr-operator/adapters/cli"
)

func main() {
	streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	if err := cli.NewRootCommand(cli.NewOptions(streams)).Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}
