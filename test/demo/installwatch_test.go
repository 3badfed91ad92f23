package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/NVIDIA/aicr/adapters/argocd"
	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/manager"
)

// written is the Application of release gpu-operator/<id> at position in its plan, as the
// operator writes it.
func written(id string, position int) *argov1.Application {
	return &argov1.Application{
		ObjectMeta: metav1.ObjectMeta{Name: "gpu-operator." + id, Namespace: "argocd",
			Annotations: map[string]string{argocd.AnnotationReleaseSpec: fmt.Sprintf(`{"position":%d}`, position)}},
		Spec: argov1.ApplicationSpec{
			Source:      &argov1.ApplicationSource{RepoURL: "oci://registry.example/aicr/charts/" + id, Path: ".", TargetRevision: "sha256:1"},
			Destination: argov1.ApplicationDestination{Server: argocd.InClusterServer, Namespace: "gpu-operator"},
		},
	}
}

// reported is app as Argo CD reports it after comparing it with source.
func reported(app *argov1.Application, source argov1.ApplicationSource, sync argov1.SyncStatusCode, health argov1.HealthStatusCode) *argov1.Application {
	out := app.DeepCopy()
	out.Status.Sync = argov1.SyncStatus{Status: sync, ComparedTo: argov1.ComparedTo{Source: source, Destination: app.Spec.Destination}}
	out.Status.Health.Status = health
	return out
}

// watched is a watch that delivered events, with the scheme judging them needs.
func watched(t *testing.T, events ...appEvent) *installWatch {
	t.Helper()
	scheme, err := manager.NewScheme(argocd.AddToScheme)
	require.NoError(t, err)
	return &installWatch{scheme: scheme, events: events}
}

// TestInstallUsagePairsEachStepReadyWithTheNextCreation: a step is ready at the first delivery
// the adapter judges ready (synced to the spec's source, Healthy), not when only one of them
// holds or when Argo CD compared an older source; the overhead runs from there to the next
// step's creation, in plan order, and the CPU time and wall time from the first creation to the
// last step ready.
func TestInstallUsagePairsEachStepReadyWithTheNextCreation(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	cpu := func(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }
	a, b, c := written("a", 2), written("b", 0), written("c", 1)
	older := *c.Spec.Source
	older.TargetRevision = "sha256:0"
	w := watched(t,
		appEvent{at: at(0), cpu: cpu(1000), created: true, app: b},
		appEvent{at: at(100), cpu: cpu(1010), app: reported(b, *b.Spec.Source, argov1.SyncStatusCodeSynced, "Progressing")},
		appEvent{at: at(150), cpu: cpu(1020), app: reported(b, *b.Spec.Source, argov1.SyncStatusCodeOutOfSync, "Healthy")},
		appEvent{at: at(200), cpu: cpu(1030), app: reported(b, *b.Spec.Source, argov1.SyncStatusCodeSynced, "Healthy")},
		appEvent{at: at(230), cpu: cpu(1040), created: true, app: c},
		appEvent{at: at(250), cpu: cpu(1050), app: reported(b, *b.Spec.Source, argov1.SyncStatusCodeSynced, "Healthy")},
		appEvent{at: at(400), cpu: cpu(1060), app: reported(c, older, argov1.SyncStatusCodeSynced, "Healthy")},
		appEvent{at: at(500), cpu: cpu(1070), app: reported(c, *c.Spec.Source, argov1.SyncStatusCodeSynced, "Healthy")},
		appEvent{at: at(540), cpu: cpu(1080), created: true, app: a},
		appEvent{at: at(900), cpu: cpu(1500), app: reported(a, *a.Spec.Source, argov1.SyncStatusCodeSynced, "Healthy")},
	)
	got, err := w.usage(context.Background())
	require.NoError(t, err)
	assert.Equal(t, installUsage{steps: 3, wall: 900 * time.Millisecond, cpu: 500 * time.Millisecond,
		overhead: []time.Duration{30 * time.Millisecond, 40 * time.Millisecond}}, got)
}

// TestInstallUsageRefusesAnIncompleteWatch: an Application the watch never saw ready, or saw
// changed before it saw it created, leaves the install unmeasured.
func TestInstallUsageRefusesAnIncompleteWatch(t *testing.T) {
	t.Parallel()
	a := written("a", 0)
	never := watched(t, appEvent{created: true, app: a}, appEvent{app: reported(a, *a.Spec.Source, argov1.SyncStatusCodeSynced, "Progressing")})
	_, err := never.usage(context.Background())
	require.ErrorContains(t, err, "never saw Application gpu-operator.a ready")
	late := watched(t, appEvent{app: reported(a, *a.Spec.Source, argov1.SyncStatusCodeSynced, "Healthy")})
	_, err = late.usage(context.Background())
	require.ErrorContains(t, err, "changed before it saw it created")
	_, err = watched(t).usage(context.Background())
	require.ErrorContains(t, err, "saw no Application")
}

// TestPercentileIsTheNearestRank: the p-th percentile of n sorted values is the value at rank
// ceil(n*p/100).
func TestPercentileIsTheNearestRank(t *testing.T) {
	t.Parallel()
	var ten []time.Duration
	for i := range 10 {
		ten = append(ten, time.Duration(i+1))
	}
	assert.Equal(t, time.Duration(5), percentile(ten, 50))
	assert.Equal(t, time.Duration(10), percentile(ten, 95))
	assert.Equal(t, time.Duration(7), percentile([]time.Duration{7}, 50))
	assert.Zero(t, percentile(nil, 50))
}
