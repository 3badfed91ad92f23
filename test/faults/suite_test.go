// Package faults_test injects the faults a real cluster has into the operator's traffic with the
// API server (envtest): every write path's response lost or answered 5xx/429, an Application
// deleted by hand while its step runs, the operator killed at every resolver stage boundary and
// two operator processes whose leader loses its lease mid-step. The operator runs in this
// process (resolver and rollout controllers, the Argo CD adapter) over a rest.Config whose
// transport injects the faults and records every write; test/jobexec plays AICR's Jobs and
// test/argocdsim Argo CD. Each case asserts the outcome of the run without a fault, that no
// object was created twice and that nothing is lost. Outages too: the runtime registry and an
// upstream chart repository (test/network) that accept requests and never answer, during a
// resolution and during the evidence push; Argo CD's controller stopped mid-rollout; and
// watches that expire with 410 Gone and must relist.
package faults_test

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
	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
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
	version     = "1.1.0"
	fixtureDir  = "v1-layout-synthetic-eks-h100-ubuntu-training-kubeflow/bundle-helm"
)

var (
	controlPlane *env.Env
	scheme       = runtime.NewScheme()
	// k8s is the cluster administrator: set-up, clean-up and the hand that deletes.
	k8s client.Client
)

func TestMain(m *testing.M) {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.Level(2))))
	os.Exit(env.Main(m, env.Options{CRDDirectoryPaths: []string{
		filepath.Join(jobexec.Root(), "charts", "aicr-operator", "templates", "crds"),
		filepath.Join(jobexec.Root(), "test", "testdata", "argocd", "crds"),
	}}, setup))
}

// setup creates the namespaces, Argo CD's AppProject, the aicr-jobs identity with the grant the
// chart gives it (a Job's Pod writes its output ConfigMap) and one system and one H100 Node.
func setup(cp *env.Env) error {
	controlPlane = cp
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, aicrv1alpha1.AddToScheme, argocd.AddToScheme} {
		if err := add(scheme); err != nil {
			return err
		}
	}
	var err error
	if k8s, err = client.New(cp.Config, client.Options{Scheme: scheme}); err != nil {
		return err
	}
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: operatorNS}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: jobNS}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: discoveryNS}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: argocd.DefaultNamespace}},
		&argov1.AppProject{ObjectMeta: metav1.ObjectMeta{Name: argocd.DefaultProject, Namespace: argocd.DefaultNamespace}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "aicr-jobs", Namespace: jobNS}},
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "aicr-jobs", Namespace: jobNS}, Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "update", "patch"},
		}}},
		&rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "aicr-jobs", Namespace: jobNS},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "aicr-jobs"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "aicr-jobs", Namespace: jobNS}},
		},
	}
	objs = append(append(objs, jobexec.FixtureNodes()...), jobexec.AgentGrants(discoveryNS, jobs.AgentServiceAccount)...)
	ctx := context.Background()
	for _, o := range objs {
		if err = k8s.Create(ctx, o); err != nil {
			return fmt.Errorf("create %s: %w", o.GetName(), err)
		}
	}
	return nil
}
