package cli_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/argocd"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/test/env"
)

// Suite state, set once by TestMain.
var (
	testEnv    *env.Env
	startErr   error
	kubeconfig string
	scheme     = runtime.NewScheme()
)

func TestMain(m *testing.M) {
	code := 1
	defer func() { os.Exit(code) }()
	dir, err := os.MkdirTemp("", "kubectl-aicr-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer func() { _ = os.RemoveAll(dir) }()
	kubeconfig = filepath.Join(dir, "kubeconfig")
	startErr = startSuite()
	if testEnv != nil {
		defer func() {
			if err := testEnv.Stop(); err != nil {
				fmt.Fprintln(os.Stderr, "stop control plane:", err)
			}
		}()
	}
	if startErr != nil {
		fmt.Fprintln(os.Stderr, "envtest suite not started:", startErr)
	}
	code = m.Run()
}

// needEnv fails the test when the control plane did not start.
func needEnv(t *testing.T) {
	t.Helper()
	if startErr != nil {
		t.Fatalf("control plane not available: %v", startErr)
	}
}

func startSuite() error {
	if err := errors.Join(clientgoscheme.AddToScheme(scheme), aicrv1alpha1.AddToScheme(scheme),
		apiextensionsv1.AddToScheme(scheme), argocd.AddToScheme(scheme)); err != nil {
		return err
	}
	objs, err := render(chartValues())
	if err != nil {
		return err
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, o := range objs {
		if o.GetKind() != "CustomResourceDefinition" {
			continue
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if convErr := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, crd); convErr != nil {
			return fmt.Errorf("decode rendered CRD %s: %w", o.GetName(), convErr)
		}
		crds = append(crds, crd)
	}
	// Argo CD's Application kind, whose objects describe shows next to each step.
	application := filepath.Join("..", "testdata", "argocd", "crds", "application-crd.yaml")
	if testEnv, err = env.Start(env.Options{CRDs: crds, CRDDirectoryPaths: []string{application}}); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin := clientFor(testEnv.Config)
	create := func(o client.Object) error {
		if err := admin.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create %T %s: %w", o, o.GetName(), err)
		}
		return nil
	}
	// The installer creates the operator namespace; Argo CD brings the engine namespace.
	for _, ns := range []string{operatorNS, "argocd"} {
		if err := create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return err
		}
	}
	for _, o := range objs {
		switch o.GetKind() {
		case "CustomResourceDefinition", "AppProject":
			continue
		}
		if err := create(o); err != nil {
			return err
		}
	}
	for _, o := range editorGrants() {
		if err := create(o); err != nil {
			return err
		}
	}
	if err := create(clusterRuntime()); err != nil {
		return err
	}
	if err := writeKubeconfig(testEnv.Config, kubeconfig); err != nil {
		return err
	}
	return waitEnforced(ctx, admin)
}

// editorGrants let editor-eve read and patch rollouts without the approve subresource, so
// her requests reach the approval admission policy, and platform-pat read and patch the
// ClusterRuntime, as a platform team's role would.
func editorGrants() []client.Object {
	name := "test-rollout-editor"
	return []client.Object{
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "test-runtime-editor"}, Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{aicrv1alpha1.GroupVersion.Group}, Resources: []string{"clusterruntimes"},
			Verbs: []string{"get", "patch"},
		}}},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "test-runtime-editor"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "test-runtime-editor"},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: platformUser}},
		},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{aicrv1alpha1.GroupVersion.Group}, Resources: []string{"runtimerollouts"},
			Verbs: []string{"get", "list", "patch"},
		}}},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: editorUser}},
		},
	}
}

// clusterRuntime is the one ClusterRuntime.
func clusterRuntime() *aicrv1alpha1.ClusterRuntime {
	cr := &aicrv1alpha1.ClusterRuntime{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}}
	cr.Spec.Intent = "training"
	cr.Spec.Placement.System.NodeSelector = map[string]aicrv1alpha1.LabelValue{"example.com/pool": "system"}
	cr.Spec.Placement.Accelerated.NodeSelector = map[string]aicrv1alpha1.LabelValue{"example.com/pool": "gpu"}
	return cr
}

// waitEnforced polls until the approval policy refuses a probe: policies compile asynchronously.
func waitEnforced(ctx context.Context, admin client.Client) error {
	probe := rolloutObject("rollout-0000000000000000-1")
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		err := admin.Create(ctx, probe.DeepCopy(), client.DryRunAll)
		if err != nil && strings.Contains(err.Error(), "RO-14:") {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("approval policy not enforced: last answer %v", err)
		case <-tick.C:
		}
	}
}

// clientFor returns a controller-runtime client for cfg.
func clientFor(cfg *rest.Config) client.Client {
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		panic(err)
	}
	return c
}

// writeKubeconfig writes the administrator's credentials as a kubeconfig; tests pick the
// identity with --as, as a user of kubectl does.
func writeKubeconfig(cfg *rest.Config, path string) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{
		ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken,
	}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "admin"}
	kc.CurrentContext = "envtest"
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		return fmt.Errorf("write kubeconfig: %w", err)
	}
	return nil
}
