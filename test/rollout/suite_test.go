// Package rollout_test runs the rollout and runtime controllers against a real API server
// (envtest) with an in-memory deployment engine, job runner and registry, and a fake clock. The
// tests that judge step timing run on each engine (onEachEngine): the in-memory one and the
// Argo CD adapter reading Applications through the manager's cache, with test/argocdsim.
package rollout_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/NVIDIA/aicr/adapters/argocd"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/test/env"
)

const (
	operatorNamespace = "aicr-system"
	approver          = "alice@example.com"
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
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapLevel())))
	return env.Main(m, env.Options{
		CRDDirectoryPaths: []string{
			filepath.Join("..", "..", "charts", "aicr-operator", "templates", "crds"),
			filepath.Join("..", "testdata", "argocd", "crds"),
		},
	}, func(cp *env.Env) error {
		var err error
		controlPlane = cp
		scheme = runtime.NewScheme()
		for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, aicrv1alpha1.AddToScheme, argocd.AddToScheme} {
			if err = add(scheme); err != nil {
				return err
			}
		}
		if k8s, err = client.New(cp.Config, client.Options{Scheme: scheme}); err != nil {
			return err
		}
		if err = setupCluster(context.Background()); err != nil {
			return err
		}
		return nil
	})
}

// setupCluster creates the operator namespace and lets the approver patch rollouts (the
// chart's admission policies are tested in test/chart).
func setupCluster(ctx context.Context) error {
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: operatorNamespace}},
		&rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: "test-approver"},
			Rules: []rbacv1.PolicyRule{{
				APIGroups: []string{aicrv1alpha1.GroupVersion.Group}, Resources: []string{"runtimerollouts"},
				Verbs: []string{"get", "list", "watch", "patch", "update"},
			}},
		},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "test-approver"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "test-approver"},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: approver}},
		},
	}
	for _, o := range objs {
		if err := k8s.Create(ctx, o); err != nil {
			return fmt.Errorf("create %s: %w", o.GetName(), err)
		}
	}
	return nil
}

func zapLevel() zapcore.Level {
	if os.Getenv("ROLLOUT_TEST_VERBOSE") != "" {
		return -1
	}
	return 2
}
