// Package retention_test runs the retention reconciler (RET-1..3) against a real API server
// (envtest): one control plane for the package, tests one after the other because the
// ClusterRuntime and RuntimeRollouts are cluster-scoped.
package retention_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/test/env"
)

const (
	operatorNamespace = "aicr-system"
	otherNamespace    = "team-a"
)

var (
	controlPlane *env.Env
	scheme       *runtime.Scheme
	k8s          client.Client
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.ErrorLevel)))
	return env.Main(m, env.Options{
		CRDDirectoryPaths: []string{filepath.Join("..", "..", "charts", "aicr-operator", "templates", "crds")},
	}, func(cp *env.Env) error {
		var err error
		controlPlane = cp
		scheme = runtime.NewScheme()
		for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, aicrv1alpha1.AddToScheme} {
			if err = add(scheme); err != nil {
				return err
			}
		}
		if k8s, err = client.New(cp.Config, client.Options{Scheme: scheme}); err != nil {
			return err
		}
		for _, ns := range []string{operatorNamespace, otherNamespace} {
			if err = k8s.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
				return err
			}
		}
		return nil
	})
}
