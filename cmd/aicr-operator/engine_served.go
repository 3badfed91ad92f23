package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/client-go/discovery"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/nvidia/aicr-operator/adapters/argocd"
)

// engineServedAtStart records whether Argo CD's Application kind was served when the operator
// started. The manager's cache of Applications is limited to the engine namespace, and that
// restriction needs the kind's REST mapping when the manager is built.
type engineServedAtStart bool

// errEngineAppeared stops an operator that started before Argo CD's CRDs existed, so that it
// restarts (the Deployment restarts it) with the engine namespace's Application cache.
var errEngineAppeared = errors.New("the Argo CD Application kind is now served: restarting to watch Applications")

// engineCheckInterval is how often an operator started without Argo CD's CRDs looks for them.
const engineCheckInterval = 30 * time.Second

func provideEngineServedAtStart(dc discovery.DiscoveryInterface) (engineServedAtStart, error) {
	served, err := argocd.ApplicationServed(dc)
	if err != nil {
		return false, fmt.Errorf("discover Argo CD: %w", err)
	}
	return engineServedAtStart(served), nil
}

// waitForEngine returns errEngineAppeared once the Application kind is served; until then the
// runtime reports EngineAvailable=False with EngineMissing (ENG-4).
func waitForEngine(dc discovery.DiscoveryInterface) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		tick := time.NewTicker(engineCheckInterval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-tick.C:
				if served, err := argocd.ApplicationServed(dc); err == nil && served {
					ctrl.Log.WithName("aicr-operator").Info(errEngineAppeared.Error())
					return errEngineAppeared
				}
			}
		}
	}
}
