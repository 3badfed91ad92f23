// Package trust_test attacks the operator's trust chain on a real API server: the chart is
// installed as a cluster would have it (CRDs, RBAC, namespaces and every admission policy),
// the resolver and the rollout controllers run in this process as the operator's
// ServiceAccount over the real Job runner, test/jobexec plays the kubelet and the Job
// controller, and an in-memory engine counts every engine write. Each attack is made as the
// least-privileged identity that could try it and must be refused by admission, or ignored or
// stalled by the operator, with no engine write (issue "trust chain").
package trust_test

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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
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
	operatorNS   = "aicr-system"
	jobsNS       = "aicr-jobs"
	discoveryNS  = "aicr-discovery"
	validationNS = "aicr-validation"
	aicrVersion  = "1.1.0"
	aicrRepo     = "registry.example.com/nvidia/aicr"
	aicrDigest   = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	// validators is the registry of AICR's check images (aicr.validators.registry).
	validators = "registry.example.com/nvidia"
	// aicrImage is the image the chart pins (repository:v<version>@digest); checkImage is the
	// deployment check image aicr validate runs (by tag, as AICR references it).
	aicrImage  = aicrRepo + ":v" + aicrVersion + "@" + aicrDigest
	checkImage = validators + "/aicr-validators/deployment:v" + aicrVersion
	// validateSA is the identity aicr validate runs as.
	validateSA = "aicr-operator-validate"
	// fixtureDir is the AICR render the simulated AICR container plays.
	fixtureDir = "v1-layout-synthetic-eks-h100-ubuntu-training-kubeflow/bundle-helm"
)

var (
	controlPlane *env.Env
	scheme       = runtime.NewScheme()
	// k8s is the administrator, for set-up and for reading what happened.
	k8s client.Client
	// components are the namespaces the fixture's releases deploy into.
	components []string
	// rendered is what the chart rendered, to put back what an attack removed.
	rendered []*unstructured.Unstructured
)

func TestMain(m *testing.M) {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.ErrorLevel)))
	os.Exit(env.Main(m, env.Options{
		CRDDirectoryPaths: []string{filepath.Join(jobexec.Root(), "test", "testdata", "argocd", "crds")},
	}, setup, func() { stopOperator() }))
}

// setup installs the chart (everything but the operator Deployment, which runs in this
// process), the attackers' grants and the Nodes, then waits until every policy enforces.
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
	for _, ns := range []string{operatorNS, "argocd"} {
		if err = k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return fmt.Errorf("create namespace %s: %w", ns, err)
		}
	}
	if rendered, err = chartrender.Render(operatorNS, chartValues()); err != nil {
		return err
	}
	if err = chartrender.Install(ctx, k8s, operatorNS, rendered, "Deployment"); err != nil {
		return err
	}
	for _, o := range append(attackerGrants(), jobexec.FixtureNodes()...) {
		if err = k8s.Create(ctx, o); err != nil {
			return fmt.Errorf("create %s %s: %w", o.GetObjectKind().GroupVersionKind().Kind, o.GetName(), err)
		}
	}
	return waitEnforced(ctx)
}

// chartValues install the chart with validation on, an approver and the fixture's namespaces.
func chartValues() map[string]any {
	return map[string]any{
		"aicr": map[string]any{
			"version":    aicrVersion,
			"image":      map[string]any{"repository": aicrRepo, "digest": aicrDigest},
			"validators": map[string]any{"registry": validators},
		},
		"registry":   map[string]any{"repository": "oci://registry.example.com/aicr"},
		"namespaces": map[string]any{"components": chartrender.Components(components...)},
		"approvers":  map[string]any{"users": []any{approverUser}},
		"validation": map[string]any{"enabled": true},
	}
}
