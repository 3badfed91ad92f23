package argocd_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/NVIDIA/aicr/adapters/argocd"
	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/argocdsim"
	"github.com/NVIDIA/aicr/test/enginetest"
)

// TestConformance runs the engine conformance suite against the Argo CD
// adapter on envtest with Argo CD's CRDs (ENG-5); the simulator plays Argo
// CD's application controller.
func TestConformance(t *testing.T) {
	t.Parallel()
	enginetest.Run(t, harness{})
}

// harness adapts the Argo CD engine to the conformance suite.
type harness struct{}

var errObservation = errors.New("observation not supported by the simulator")

func (harness) NewInstance(t *testing.T) enginetest.Instance {
	e, writes := newEngine(t, cp.Config, argocd.Config{})
	return enginetest.Instance{Engine: e, Writes: func() int { return int(writes.Load()) }}
}

func (harness) Observe(ctx context.Context, ref ports.ReleaseRef, o enginetest.Observation) error {
	mode, err := modeOf(o)
	if err != nil {
		return err
	}
	sim.SetMode(ref, mode)
	_, err = sim.Settle(ctx, ref)
	return err
}

// modeOf maps an engine-neutral observation onto a simulator mode.
func modeOf(o enginetest.Observation) (argocdsim.Mode, error) {
	switch {
	case o.Operation == ports.OperationRunning:
		return argocdsim.Syncing, nil
	case o.Operation == ports.OperationFailed:
		return argocdsim.SyncFailed, nil
	case !o.Synced && o.Health == ports.HealthHealthy:
		return argocdsim.OutOfSync, nil
	case o.Synced && o.Health == ports.HealthHealthy:
		return argocdsim.Healthy, nil
	case o.Synced && o.Health == ports.HealthDegraded:
		return argocdsim.Degraded, nil
	case o.Synced && o.Health == ports.HealthProgressing:
		return argocdsim.Progressing, nil
	}
	return "", fmt.Errorf("%+v: %w", o, errObservation)
}

func (harness) CreateForeign(ctx context.Context, ref ports.ReleaseRef) error {
	return admin.Create(ctx, &argov1.Application{
		ObjectMeta: metav1.ObjectMeta{Name: argocd.ApplicationName(ref), Namespace: argocd.DefaultNamespace},
		Spec: argov1.ApplicationSpec{
			Project:     "default",
			Source:      &argov1.ApplicationSource{RepoURL: "https://charts.example.com", Chart: ref.ID, TargetRevision: "1.0.0"},
			Destination: argov1.ApplicationDestination{Server: argocd.InClusterServer, Namespace: ref.Namespace},
		},
	})
}

func (harness) CascadeGuarded(ctx context.Context, ref ports.ReleaseRef) (bool, error) {
	return sim.CascadeGuarded(ctx, ref)
}

func (harness) CompleteRemoval(ctx context.Context, ref ports.ReleaseRef) error {
	return sim.FinishDeletion(ctx, ref)
}

func (harness) StoredValues(ctx context.Context, ref ports.ReleaseRef) (map[string]any, error) {
	return sim.Values(ctx, ref)
}
