package argocd_test

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/NVIDIA/aicr/adapters/argocd"
	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/clock"
	"github.com/NVIDIA/aicr/test/argocdsim"
	"github.com/NVIDIA/aicr/test/env"
)

// The package's one shared control plane, with Argo CD's CRDs, the engine
// namespace and the AppProject installed.
var (
	cp     *env.Env
	scheme = runtime.NewScheme()
	admin  client.WithWatch
	sim    *argocdsim.Sim
)

const testRegistry = "registry.test/aicr"

func TestMain(m *testing.M) {
	os.Exit(env.Main(m, env.Options{CRDDirectoryPaths: []string{crdDir()}}, func(started *env.Env) error {
		cp = started
		return setup(context.Background())
	}))
}

// crdDir holds Argo CD's Application and AppProject CRDs, copied from the argo-cd v3.2.12 module.
func crdDir() string {
	return filepath.Join("..", "..", "test", "testdata", "argocd", "crds")
}

func setup(ctx context.Context) error {
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, argocd.AddToScheme} {
		if err := add(scheme); err != nil {
			return err
		}
	}
	var err error
	admin, err = client.NewWithWatch(cp.Config, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	if err = admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: argocd.DefaultNamespace}}); err != nil {
		return err
	}
	project := &argov1.AppProject{ObjectMeta: metav1.ObjectMeta{Name: argocd.DefaultProject, Namespace: argocd.DefaultNamespace}}
	if err = admin.Create(ctx, project); err != nil {
		return err
	}
	sim = argocdsim.New(admin, argocd.DefaultNamespace, clock.NewFake(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)))
	return nil
}

// newEngine returns an engine over cfg (REST config) with a write counter.
func newEngine(t *testing.T, cfg *rest.Config, engineCfg argocd.Config) (*argocd.Engine, *atomic.Int64) {
	t.Helper()
	base, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	writes := &atomic.Int64{}
	counting := interceptor.NewClient(base, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			writes.Add(1)
			return c.Create(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			writes.Add(1)
			return c.Update(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
			writes.Add(1)
			return c.Patch(ctx, obj, p, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			writes.Add(1)
			return c.Delete(ctx, obj, opts...)
		},
	})
	if engineCfg.Registry == "" {
		engineCfg.Registry = testRegistry
	}
	return argocd.NewEngine(counting, dc, engineCfg), writes
}
