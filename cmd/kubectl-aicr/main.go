// Command kubectl-aicr is the kubectl plugin of the AICR operator: kubectl aicr describe,
// approve, revoke, acknowledge, reproduce, plan, version, completion and help. All logic lives
// in adapters/cli. kubectl_complete-aicr, next to this file, is kubectl's completion shim.
package main

import (
	"context"
	"os"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"

	"github.com/NVIDIA/aicr/adapters/aicr"
	"github.com/NVIDIA/aicr/adapters/argocd"
	"github.com/NVIDIA/aicr/adapters/cli"
)

// now is the plugin's clock, handed to the commands.
var now = time.Now //nolint:forbidigo // the plugin's real clock

func main() {
	o := cli.NewOptions(genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
	o.Now = now
	o.Version = pluginVersion()
	o.Bundles = aicr.Reader{}
	o.Engine = argoCDReader
	os.Exit(cli.Run(context.Background(), o, os.Args[1:]))
}

// argoCDReader is the Argo CD engine describe and reproduce read each release's Application
// through, as the caller of cfg, rendering the plan's spec as the operator does. Status never
// writes.
func argoCDReader(cfg *rest.Config, engine cli.EngineConfig) (cli.EngineReader, error) {
	return argocd.NewStatusReader(cfg, argocd.Config{Namespace: engine.Namespace, Project: engine.Project, Registry: engine.Registry})
}
