package argocdsim_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/argocd"
	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/clock"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/argocdsim"
	"github.com/NVIDIA/aicr/test/env"
)

var (
	cfg    *rest.Config
	c      client.Client
	engine *argocd.Engine
	t0     = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	return env.Main(m, env.Options{CRDDirectoryPaths: []string{filepath.Join("..", "testdata", "argocd", "crds")}}, func(cp *env.Env) error {
		var err error
		if err = setup(cp); err != nil {
			return err
		}
		return nil
	})
}

func setup(cp *env.Env) error {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := argocd.AddToScheme(scheme); err != nil {
		return err
	}
	cfg = cp.Config
	var err error
	if c, err = client.New(cp.Config, client.Options{Scheme: scheme}); err != nil {
		return err
	}
	ctx := context.Background()
	if err = c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: argocd.DefaultNamespace}}); err != nil {
		return err
	}
	engine = argocd.NewEngine(c, nil, argocd.Config{Registry: "registry.test/aicr"})
	return nil
}

func apply(t *testing.T, id string) ports.ReleaseRef {
	t.Helper()
	ref := ports.ReleaseRef{ID: id, Namespace: "sim"}
	require.NoError(t, engine.Apply(t.Context(), ports.ReleaseSpec{
		Ref:   ref,
		Chart: ports.ChartSource{Repository: "https://charts.example.com", Name: id, Version: "1.0.0", ManifestDigest: digestOf(id)},
		Owner: ports.ReleaseOwner{RuntimeUID: "uid-sim", PlanDigest: "sha256:plan"},
	}))
	t.Cleanup(func() {
		app := &argov1.Application{ObjectMeta: metav1.ObjectMeta{Namespace: argocd.DefaultNamespace, Name: argocd.ApplicationName(ref)}}
		require.NoError(t, client.IgnoreNotFound(c.Delete(context.Background(), app)), "the next run (-count) starts without it")
	})
	return ref
}

// TestModes: each mode yields the engine-neutral status the rollout
// controller's failure tests rely on, stamped with the fake clock.
func TestModes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		mode   argocdsim.Mode
		health ports.Health
		op     ports.OperationState
		synced bool
	}{
		{argocdsim.Healthy, ports.HealthHealthy, ports.OperationSucceeded, true},
		{argocdsim.Degraded, ports.HealthDegraded, ports.OperationSucceeded, true},
		{argocdsim.Progressing, ports.HealthProgressing, ports.OperationSucceeded, true},
		{argocdsim.OutOfSync, ports.HealthHealthy, ports.OperationSucceeded, false},
		{argocdsim.SyncFailed, ports.HealthMissing, ports.OperationFailed, false},
		{argocdsim.Syncing, ports.HealthProgressing, ports.OperationRunning, false},
	}
	sim := argocdsim.New(c, argocd.DefaultNamespace, clock.NewFake(t0))
	for _, tc := range cases {
		t.Run(string(tc.mode), func(t *testing.T) {
			t.Parallel()
			ref := apply(t, "mode-"+strings.ToLower(string(tc.mode)))
			sim.SetMode(ref, tc.mode)
			wrote, err := sim.Settle(t.Context(), ref)
			require.NoError(t, err)
			assert.True(t, wrote)
			st, err := engine.Status(t.Context(), ref)
			require.NoError(t, err)
			assert.Equal(t, tc.health, st.Health)
			assert.Equal(t, tc.op, st.Operation)
			assert.Equal(t, tc.synced, st.Synced())
			assert.Equal(t, t0, st.LastSyncAt.UTC())

			wrote, err = sim.Settle(t.Context(), ref)
			require.NoError(t, err)
			assert.False(t, wrote, "settling a settled Application writes nothing")
		})
	}
}

// TestSettleAllAndDeletion: SettleAll follows spec changes with the default
// mode; FinishDeletion completes a Remove as Argo CD's cascade would. It does
// not run in parallel: SettleAll settles every Application of the namespace,
// those of the other tests included.
func TestSettleAllAndDeletion(t *testing.T) {
	ctx := t.Context()
	fake := clock.NewFake(t0)
	sim := argocdsim.New(c, argocd.DefaultNamespace, fake)
	ref := apply(t, "settle-all")
	_, err := sim.SettleAll(ctx)
	require.NoError(t, err)
	st, err := engine.Status(ctx, ref)
	require.NoError(t, err)
	require.True(t, st.Ready())

	sim.SetDefault(argocdsim.Degraded)
	fake.Step(time.Minute)
	_, err = sim.SettleAll(ctx)
	require.NoError(t, err)
	st, err = engine.Status(ctx, ref)
	require.NoError(t, err)
	assert.Equal(t, ports.HealthDegraded, st.Health)
	assert.Equal(t, t0.Add(time.Minute), st.LastSyncAt.UTC())

	owner := ports.ReleaseOwner{RuntimeUID: "uid-sim"}
	require.NoError(t, engine.Remove(ctx, ref, owner))
	guarded, err := sim.CascadeGuarded(ctx, ref)
	require.NoError(t, err)
	require.True(t, guarded)
	require.NoError(t, sim.FinishDeletion(ctx, ref))
	_, err = engine.Status(ctx, ref)
	require.ErrorIs(t, err, ports.ErrTargetNotFound)
	require.NoError(t, sim.FinishDeletion(ctx, ref), "finishing a finished deletion is a no-op")
	guarded, err = sim.CascadeGuarded(ctx, ref)
	require.NoError(t, err)
	assert.False(t, guarded)
}

func TestForeignNamespaceIgnored(t *testing.T) {
	t.Parallel()
	sim := argocdsim.New(c, argocd.DefaultNamespace, clock.NewFake(t0))
	_, err := sim.Reconcile(t.Context(), reconcileRequest("other", "x"))
	require.NoError(t, err)
	_, err = sim.Reconcile(t.Context(), reconcileRequest(argocd.DefaultNamespace, "gone"))
	require.NoError(t, err, "a deleted Application is no error")
	var apps argov1.ApplicationList
	require.NoError(t, c.List(t.Context(), &apps, client.InNamespace("other")))
	assert.Empty(t, apps.Items)
}

// digestOf returns a well-formed manifest digest derived from s.
func digestOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}
