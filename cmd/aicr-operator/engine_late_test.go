package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/chartrender"
	"github.com/NVIDIA/aicr/test/env"
)

const operatorNamespace = "aicr-system"

// assembled counts the operators assemble built in this process.
var assembled atomic.Int64

// TestOperatorWatchesApplicationsOnceArgoCDIsInstalled proves ENG-4 on the assembled operator,
// run as its ServiceAccount with the chart's RBAC: started before Argo CD's CRDs exist, it
// reports EngineMissing; once the CRDs and the AppProject are installed the same run (it never
// returns) writes an Application, reads it back through the engine namespace's cache, and the
// runtime controller receives the Application's event through the watch added at runtime.
func TestOperatorWatchesApplicationsOnceArgoCDIsInstalled(t *testing.T) {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.ErrorLevel)))
	cp, err := env.Start(env.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, cp.Stop()) })
	ctx := t.Context()
	admin, err := client.New(cp.Config, client.Options{})
	require.NoError(t, err)
	objs := installChart(ctx, t, admin)
	r := assemble(t, cp, objs)

	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- r.run(runCtx) }()
	select {
	case <-r.Manager.Elected():
	case runErr := <-done:
		t.Fatalf("the operator stopped before it was elected: %v", runErr)
	}
	require.True(t, r.Manager.GetCache().WaitForCacheSync(ctx))
	ref := ports.ReleaseRef{ID: "gpu-operator", Namespace: "gpu-operator"}
	require.ErrorIs(t, r.Engine.Check(ctx), ports.ErrEngineMissing)
	_, err = r.Engine.Status(ctx, ref)
	require.ErrorIs(t, err, ports.ErrEngineMissing, "the engine reads through the cache before the kind is served")

	_, err = envtest.InstallCRDs(cp.Config, envtest.CRDInstallOptions{
		Paths: []string{filepath.Join("..", "..", "test", "testdata", "argocd", "crds")}, ErrorIfPathMissing: true,
	})
	require.NoError(t, err)
	require.NoError(t, chartrender.Apply(ctx, admin, operatorNamespace, kind(objs, "AppProject")))
	require.Eventually(t, func() bool { return r.Engine.Check(ctx) == nil }, time.Minute, 50*time.Millisecond)

	before, err := reconciles("clusterruntime")
	require.NoError(t, err)
	spec := ports.ReleaseSpec{
		Ref:   ref,
		Chart: ports.ChartSource{Repository: "https://helm.ngc.nvidia.com/nvidia", Name: "gpu-operator", Version: "v25.10.1", ManifestDigest: "sha256:" + strings.Repeat("0", 64)},
		Owner: ports.ReleaseOwner{RuntimeUID: "uid-late", PlanDigest: "sha256:plan"},
	}
	require.NoError(t, r.Engine.Apply(ctx, spec))
	require.Eventually(t, func() bool {
		st, err := r.Engine.Status(ctx, ref)
		return err == nil && st.Owner == spec.Owner
	}, time.Minute, 50*time.Millisecond, "the Application is read back from the engine namespace's cache")
	require.Eventually(t, func() bool {
		n, err := reconciles("clusterruntime")
		return err == nil && n > before
	}, time.Minute, 50*time.Millisecond,
		"the Application's event reaches the runtime controller through the watch added at runtime")

	select {
	case runErr := <-done:
		t.Fatalf("the operator stopped once Argo CD appeared: %v", runErr)
	default:
	}
	stop()
	require.NoError(t, <-done)
}

// installChart applies what the chart renders except the Deployment and the AppProject (Argo
// CD is not installed yet) and returns the rendered objects.
func installChart(ctx context.Context, t *testing.T, c client.Client) []*unstructured.Unstructured {
	t.Helper()
	for _, ns := range []string{operatorNamespace, "argocd"} {
		require.NoError(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	}
	objs, err := chartrender.Render(operatorNamespace, map[string]any{
		"aicr":       map[string]any{"version": "1.1.0"},
		"registry":   map[string]any{"repository": "oci://registry.example/aicr"},
		"namespaces": map[string]any{"components": []any{map[string]any{"name": "gpu-operator", "podSecurity": "privileged"}}},
	})
	require.NoError(t, err)
	require.NoError(t, chartrender.Install(ctx, c, operatorNamespace, objs, "Deployment", "AppProject"))
	return objs
}

// assemble builds the operator from the Deployment's arguments as its ServiceAccount, checking
// for the Application kind every 20ms instead of every 30s.
func assemble(t *testing.T, cp *env.Env, objs []*unstructured.Unstructured) *runner {
	t.Helper()
	args, err := chartrender.OperatorArgs(objs, operatorNamespace)
	require.NoError(t, err)
	var cfg app.Config
	fs := flag.NewFlagSet("aicr-operator", flag.ContinueOnError)
	cfg.BindFlags(fs)
	require.NoError(t, fs.Parse(args))
	require.NoError(t, cfg.Validate())
	raw, err := cp.KubeConfig("system:serviceaccount:"+operatorNamespace+":aicr-operator",
		"system:serviceaccounts", "system:serviceaccounts:"+operatorNamespace)
	require.NoError(t, err)
	kubeconfig := filepath.Join(t.TempDir(), "operator.kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, raw, 0o600))
	t.Setenv("KUBECONFIG", kubeconfig)
	r, cleanup, err := initialize(t.Context(), cfg)
	require.NoError(t, err)
	t.Cleanup(cleanup)
	r.Rollouts.engineWatchInterval = 20 * time.Millisecond
	if assembled.Add(1) > 1 {
		// controller-runtime takes every controller name once per process, and the first
		// operator of this process (go test -count=N) took them: later ones skip the check.
		r.Manager = namesTaken{r.Manager}
	}
	return r
}

// namesTaken is a manager whose controllers skip controller-runtime's process-wide check
// that no other controller has their name.
type namesTaken struct{ ctrl.Manager }

// GetControllerOptions returns the manager's controller options with SkipNameValidation set.
func (m namesTaken) GetControllerOptions() config.Controller {
	o := m.Manager.GetControllerOptions()
	o.SkipNameValidation = ptr.To(true)
	return o
}

// kind returns the objects of one kind.
func kind(objs []*unstructured.Unstructured, k string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == k {
			out = append(out, o)
		}
	}
	return out
}

// reconciles returns how many reconciles the named controller ran in this process.
func reconciles(controller string) (float64, error) {
	families, err := metrics.Registry.Gather()
	if err != nil {
		return 0, err
	}
	var n float64
	for _, f := range families {
		if f.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "controller" && l.GetValue() == controller {
					n += m.GetCounter().GetValue()
				}
			}
		}
	}
	return n, nil
}
