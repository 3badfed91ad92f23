package v1alpha1_test

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/test/env"
)

// k8s is an admin client of the package's one shared control plane, which has the chart's
// CRDs installed: installing them is itself the CEL cost-budget test (PLAT-8), because the
// API server refuses a CRD whose rules exceed the budget.
var k8s client.Client

// restConfig is the admin configuration of the shared control plane.
var restConfig *rest.Config

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	return env.Main(m, env.Options{
		CRDDirectoryPaths: []string{filepath.Join("..", "..", "..", "..", "charts", "aicr-operator", "templates", "crds")},
	}, func(cp *env.Env) error {
		var err error
		scheme := runtime.NewScheme()
		if err = aicrv1alpha1.AddToScheme(scheme); err != nil {
			return err
		}
		restConfig = cp.Config
		k8s, err = client.New(cp.Config, client.Options{Scheme: scheme})
		if err != nil {
			return err
		}
		return nil
	})
}
