// Package crdlifecycle_test runs the Argo CD engine against a control plane
// that starts without Argo CD's CRDs (ENG-4): its own envtest, because the
// adapter package's shared control plane has the CRDs from the start.
package crdlifecycle_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/NVIDIA/aicr/adapters/argocd"
	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/env"
)

var cp *env.Env

// runs numbers the runs of the test in this binary, so go test -count=N gives every run an
// engine namespace of its own on the shared control plane (envtest runs no namespace
// controller, so a namespace is never really deleted).
var runs atomic.Int64

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	var err error
	if cp, err = env.Start(env.Options{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() {
		if stopErr := cp.Stop(); stopErr != nil {
			fmt.Fprintln(os.Stderr, stopErr)
		}
	}()
	return m.Run()
}

// TestEngineFollowsTheCRDsAppearing: one engine, built before the CRDs exist,
// reports EngineMissing, then ProjectMissing once the CRDs are installed,
// then works once the AppProject exists, with no new client or restart. A
// repeated run (go test -count=N) first uninstalls the CRDs the run before it
// installed.
func TestEngineFollowsTheCRDsAppearing(t *testing.T) {
	ctx := t.Context()
	require.NoError(t, cp.UninstallCRDs(ctx, argoCDCRDs()), "a repeated run starts without the CRDs the run before it installed")
	engineNS := fmt.Sprintf("argocd-%d", runs.Add(1))
	scheme := runtime.NewScheme()
	require.NoError(t, clientgoscheme.AddToScheme(scheme))
	require.NoError(t, argocd.AddToScheme(scheme))
	c, err := client.New(cp.Config, client.Options{Scheme: scheme})
	require.NoError(t, err)
	dc, err := discovery.NewDiscoveryClientForConfig(cp.Config)
	require.NoError(t, err)
	cfg := argocd.Config{Namespace: engineNS, Registry: "registry.test/aicr"}
	e := argocd.NewEngine(c, dc, cfg)
	withoutDiscovery := argocd.NewEngine(c, nil, cfg)

	served, err := argocd.ApplicationServed(dc)
	require.NoError(t, err)
	assert.False(t, served)
	require.ErrorIs(t, e.Check(ctx), ports.ErrEngineMissing)
	require.ErrorIs(t, withoutDiscovery.Check(ctx), ports.ErrEngineMissing, "the no-match error alone says so too")
	ref := ports.ReleaseRef{ID: "gpu-operator", Namespace: "gpu-operator"}
	_, err = e.Status(ctx, ref)
	require.ErrorIs(t, err, ports.ErrEngineMissing)
	_, err = e.List(ctx)
	require.ErrorIs(t, err, ports.ErrEngineMissing)

	_, err = envtest.InstallCRDs(cp.Config, argoCDCRDs())
	require.NoError(t, err)
	served, err = argocd.ApplicationServed(dc)
	require.NoError(t, err)
	assert.True(t, served, "discovery is asked on every call")
	require.ErrorIs(t, e.Check(ctx), ports.ErrProjectMissing)

	require.NoError(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: engineNS}}))
	require.NoError(t, c.Create(ctx, &argov1.AppProject{ObjectMeta: metav1.ObjectMeta{Name: argocd.DefaultProject, Namespace: engineNS}}))
	require.NoError(t, e.Check(ctx))
	require.NoError(t, withoutDiscovery.Check(ctx))

	spec := ports.ReleaseSpec{
		Ref:   ref,
		Chart: ports.ChartSource{Repository: "https://helm.ngc.nvidia.com/nvidia", Name: "gpu-operator", Version: "v25.10.1", ManifestDigest: "sha256:" + strings.Repeat("0", 64)},
		Owner: ports.ReleaseOwner{RuntimeUID: "uid-late", PlanDigest: "sha256:plan"},
	}
	require.NoError(t, e.Apply(ctx, spec))
	st, err := e.Status(ctx, ref)
	require.NoError(t, err)
	assert.Equal(t, spec.Owner, st.Owner)
}

// argoCDCRDs selects Argo CD's Application and AppProject CRDs.
func argoCDCRDs() envtest.CRDInstallOptions {
	return envtest.CRDInstallOptions{
		Paths: []string{filepath.Join("..", "..", "..", "test", "testdata", "argocd", "crds")}, ErrorIfPathMissing: true,
	}
}
