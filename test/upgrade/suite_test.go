// Package upgrade_test moves the operator from one AICR release to the next on a real API
// server: the chart is installed as a cluster would have it, the resolver
// and the rollout controllers run in this process as the operator's ServiceAccount, test/jobexec
// plays the recorded renders of each release, and an in-memory engine applies the rollouts.
// Changing aicr.version and the image digest is a chart upgrade followed by an operator restart.
package upgrade_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/test/chartrender"
	"github.com/NVIDIA/aicr/test/env"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// The installation the suite renders the chart with.
const (
	operatorNS  = "aicr-system"
	jobsNS      = "aicr-jobs"
	discoveryNS = "aicr-discovery"
	aicrRepo    = "registry.example.com/nvidia/aicr"
	// fixtureDir is the AICR render the simulated AICR container plays.
	fixtureDir   = "v1-layout-synthetic-eks-h100-ubuntu-training-kubeflow/bundle-helm"
	operatorUser = "system:serviceaccount:" + operatorNS + ":aicr-operator"
	approverUser = "approver-alice"
)

var (
	controlPlane *env.Env
	scheme       = runtime.NewScheme()
	// k8s is the administrator, for set-up and for reading what happened.
	k8s client.Client
	// components are the namespaces the fixture's releases deploy into.
	components []string
)

func TestMain(m *testing.M) {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.ErrorLevel)))
	os.Exit(env.Main(m, env.Options{
		CRDDirectoryPaths: []string{filepath.Join(jobexec.Root(), "test", "testdata", "argocd", "crds")},
	}, setup))
}

// setup creates the operator and engine namespaces and the Nodes; each release installs the
// chart itself (installChart).
func setup(cp *env.Env) error {
	controlPlane = cp
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, aicrv1alpha1.AddToScheme, apiextensionsv1.AddToScheme} {
		if err := add(scheme); err != nil {
			return err
		}
	}
	var err error
	if k8s, err = client.New(cp.Config, client.Options{Scheme: scheme}); err != nil {
		return err
	}
	if components, err = jobexec.FixtureNamespaces(fixtureDir); err != nil {
		return err
	}
	ctx := context.Background()
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: operatorNS}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "argocd"}},
	}
	for _, o := range append(objs, jobexec.FixtureNodes()...) {
		if err = k8s.Create(ctx, o); err != nil {
			return fmt.Errorf("create %s: %w", o.GetName(), err)
		}
	}
	return nil
}

// installChart installs (or upgrades to) the chart of release rel: server-side apply of
// everything but the operator Deployment, which runs in this process.
func installChart(ctx context.Context, rel release) error {
	rendered, err := chartrender.Render(operatorNS, map[string]any{
		"aicr": map[string]any{
			"version": rel.version,
			"image":   map[string]any{"repository": aicrRepo, "digest": rel.digest},
		},
		"registry":   map[string]any{"repository": "oci://registry.example.com/aicr"},
		"namespaces": map[string]any{"components": chartrender.Components(components...)},
		"approvers":  map[string]any{"users": []any{approverUser}},
	})
	if err != nil {
		return err
	}
	return chartrender.Install(ctx, k8s, operatorNS, rendered, "Deployment")
}

// as returns a client acting as user with groups, through RBAC and admission.
func as(user string, groups ...string) client.Client {
	c, err := controlPlane.ClientAs(scheme, user, groups...)
	if err != nil {
		panic(err)
	}
	return c
}

// operatorConfig is the operator's ServiceAccount as the API server sees it.
func operatorConfig() *rest.Config {
	return controlPlane.Impersonate(operatorUser, "system:serviceaccounts", "system:serviceaccounts:"+operatorNS)
}
