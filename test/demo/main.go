// Command aicr-demo walks a newcomer through the operator's main job on a local control plane
// (`make demo`). It starts kube-apiserver and etcd built from the Go module proxy, installs
// what the chart renders and Argo CD's CRDs, runs the real operator binary and two simulators
// in their own processes — a kubelet that plays the AICR container from the fixtures and an
// Argo CD that marks Applications synced and healthy — and then applies a ClusterRuntime, rolls
// out the initial install, changes an override, approves the rollout that needs it with
// kubectl aicr, and prints the result. It exits non-zero when a stage fails.
//
//	aicr-demo run [--workdir DIR] [--pause 2s] [--keep]
//	aicr-demo kubelet-simulator --namespace NS --image IMAGE   (started by run)
//	aicr-demo argocd-simulator --namespace NS                  (started by run)
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		os.Exit(1)
	}
}

// run dispatches one command and reports its failure on standard error.
func run(args []string) error {
	if len(args) < 1 {
		err := fmt.Errorf("usage: aicr-demo run|kubelet-simulator|argocd-simulator [flags]")
		fmt.Fprintln(os.Stderr, err)
		return err
	}
	var err error
	switch args[0] {
	case "run":
		err = runDemo(args[1:])
	case "kubelet-simulator":
		err = runKubeletSimulator(args[1:])
	case "argocd-simulator":
		err = runArgoCDSimulator(args[1:])
	default:
		err = fmt.Errorf("unknown command %q", args[0])
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "aicr-demo %s: %v\n", args[0], err)
	}
	return err
}
