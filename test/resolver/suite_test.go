// Package resolver_test proves the resolver on a real API server: the
// adapters/jobs runner creates real Jobs, test/jobexec plays the kubelet,
// and the tests read the live ClusterRuntime and plan ConfigMaps.
package resolver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/jobs"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/test/env"
	"github.com/NVIDIA/aicr/test/jobexec"
)

const (
	operatorNS = "aicr-system"
	jobNS      = "aicr-jobs"
	// discoveryNS is where the snapshot agent runs, as jobs.AgentServiceAccount.
	discoveryNS = "aicr-discovery"
	image       = "registry.example.com/nvidia/aicr@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
)

var (
	restConfig *rest.Config
	scheme     = runtime.NewScheme()
	k8s        client.Client
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	return env.Main(m, env.Options{
		CRDDirectoryPaths: []string{filepath.Join(jobexec.Root(), "charts", "aicr-operator", "templates", "crds")},
	}, func(cp *env.Env) error {
		var err error
		restConfig = cp.Config
		if err = setup(); err != nil {
			return err
		}
		return nil
	})
}

// setup creates the namespaces, the aicr-jobs and snapshot agent identities
// with the grants the chart gives them (a Job's Pod writes its output ConfigMap, test/jobexec plays it with
// the Pod's identity) and the test Nodes: pool system, pool gpu (H100) and pool gpu-mixed
// (an H100 and an A100).
func setup() error {
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, aicrv1alpha1.AddToScheme} {
		if err := add(scheme); err != nil {
			return err
		}
	}
	var err error
	if k8s, err = client.New(restConfig, client.Options{Scheme: scheme}); err != nil {
		return err
	}
	ctx := context.Background()
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: operatorNS}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: jobNS}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "aicr-jobs", Namespace: jobNS}},
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "aicr-jobs", Namespace: jobNS}, Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "update", "patch"},
		}}},
		&rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "aicr-jobs", Namespace: jobNS},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "aicr-jobs"},
			Subjects: []rbacv1.Subject{
				{Kind: rbacv1.ServiceAccountKind, Name: "aicr-jobs", Namespace: jobNS},
			},
		},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: discoveryNS}},
		node("sys-1", map[string]string{"aicr.test/pool": "system", "aicr.test/zone": "a"}),
		node("gpu-1", map[string]string{"aicr.test/pool": "gpu", "aicr.test/zone": "a", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}),
		node("gpu-2", map[string]string{"aicr.test/pool": "gpu-mixed", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}),
		node("gpu-3", map[string]string{"aicr.test/pool": "gpu-mixed", "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"}),
	}
	objs = append(objs, jobexec.AgentGrants(discoveryNS, jobs.AgentServiceAccount)...)
	for _, o := range objs {
		if err = k8s.Create(ctx, o); err != nil {
			return fmt.Errorf("create %s: %w", o.GetName(), err)
		}
	}
	return nil
}

func node(name string, labels map[string]string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}
