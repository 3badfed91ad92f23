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
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: aicr-demo run|kubelet-simulator|argocd-simulator [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "run":
		err = runDemo(os.Args[2:])
	case "kubelet-simulator":
		err = runKubeletSimulator(os.Args[2:])
	case "argocd-simulator":
		err = runArgoCDSimulator(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "aicr-demo %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
