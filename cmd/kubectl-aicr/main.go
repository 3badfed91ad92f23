// Command kubectl-aicr is the kubectl plugin of the AICR operator: kubectl aicr describe,
// approve, revoke, acknowledge, reproduce, plan, version, completion and help. All logic lives
// in adapters/cli. kubectl_complete-aicr, next to this file, is kubectl's completion shim.
package main

import (
	"context"
	"os"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/nvidia/aicr-operator/adapters/aicr"
	"github.com/nvidia/aicr-operator/adapters/cli"
)

// now is the plugin's clock, handed to the commands.
var now = time.Now //nolint:forbidigo // the plugin's real clock

func main() {
	o := cli.NewOptions(genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
	o.Now = now
	o.Version = pluginVersion()
	o.Bundles = aicr.Reader{}
	os.Exit(cli.Run(context.Background(), o, os.Args[1:]))
}
