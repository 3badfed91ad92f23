// Package chart_test renders charts/aicr-operator with the Helm v3 SDK and proves what it
// renders against a real API server: the CRDs, RBAC, namespaces and admission policies are
// applied to one shared envtest control plane, and impersonated users try to get around them.
package chart_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/test/env"
)

// Test identities. Approvers come from the chart values; the others get their grants from
// fixtures the suite creates, so RBAC lets their requests reach admission.
const (
	approverUser  = "approver-alice"
	approverGroup = "gpu-platform-approvers"
	groupApprover = "approver-bob"
	editorUser    = "editor-eve"
	cmWriterUser  = "mallory"
	scopedUser    = "scoped-sam"
	viewerUser    = "viewer-vic"
	engineNS      = "argocd"
	jobsNS        = "aicr-jobs"
	roleARN       = "arn:aws:iam::123456789012:role/aicr-operator"
	pullRoleARN   = "arn:aws:iam::123456789012:role/aicr-argocd-pull"
)

// Suite state, set once by TestMain and read by the tests.
var (
	testEnv  *env.Env
	startErr error
	// suiteValues are the values the suite renders and applies.
	suiteValues map[string]any
	// helm installed the chart into testEnv and upgrades it in the restore test.
	helm *helmClient
)

var (
	rolloutGVR   = schema.GroupVersionResource{Group: "operator.aicr.run", Version: "v1alpha1", Resource: "runtimerollouts"}
	runtimeGVR   = schema.GroupVersionResource{Group: "operator.aicr.run", Version: "v1alpha1", Resource: "clusterruntimes"}
	namespaceGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	bindingGVR   = schema.GroupVersionResource{
		Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicybindings",
	}
)

// operatorGroups are the groups the API server gives the operator's ServiceAccount.
var operatorGroups = []string{"system:serviceaccounts", "system:serviceaccounts:" + releaseNamespace}

// The chart's other ServiceAccounts (ADM-1): the AICR Jobs' identity in the Job namespace and
// the identity aicr validate runs as, bound to cluster-admin because validation is enabled.
const (
	validationNS  = "aicr-validation"
	validatorUser = "system:serviceaccount:" + validationNS + ":aicr-operator-validate"
	// runValidatorUser is the validator identity one `aicr validate` run creates and binds to
	// cluster-admin.
	runValidatorUser = "system:serviceaccount:" + validationNS + ":aicr-validator-0a1b2c3d"
	jobsUser         = "system:serviceaccount:" + jobsNS + ":aicr-jobs"
)

func validatorClient() client {
	return as(validatorUser, "system:serviceaccounts", "system:serviceaccounts:"+validationNS)
}

func runValidatorClient() client {
	return as(runValidatorUser, "system:serviceaccounts", "system:serviceaccounts:"+validationNS)
}

func jobsClient() client {
	return as(jobsUser, "system:serviceaccounts", "system:serviceaccounts:"+jobsNS)
}

func TestMain(m *testing.M) {
	code := 1
	defer func() { os.Exit(code) }()
	suiteValues = withValues(map[string]any{
		"registry.auth.provider":             "aws",
		"registry.auth.awsPullRoleArn":       pullRoleARN,
		"operator.serviceAccountAnnotations": map[string]any{"eks.amazonaws.com/role-arn": roleARN},
		"approvers.users":                    []any{approverUser},
		"approvers.groups":                   []any{approverGroup},
		"viewers.users":                      []any{viewerUser},
		"validation.enabled":                 true,
	})
	dir, cleanup, err := tempDir()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer cleanup()
	testEnv, helm, startErr = startControlPlane(dir)
	if testEnv != nil {
		defer func() {
			if err := testEnv.Stop(); err != nil {
				fmt.Fprintln(os.Stderr, "stop control plane:", err)
			}
		}()
	}
	if startErr == nil {
		startErr = startSuite()
	}
	if startErr != nil {
		fmt.Fprintln(os.Stderr, "envtest suite not started, admission tests fail:", startErr)
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

// startControlPlane starts a control plane with Argo CD's AppProject CRD and installs the
// chart into it with helm install and suiteValues, after creating what an installer has
// before: the release namespace and Argo CD's namespace with argocd-cm.
func startControlPlane(dir string) (*env.Env, *helmClient, error) {
	appProject, err := appProjectCRD()
	if err != nil {
		return nil, nil, err
	}
	e, err := env.Start(env.Options{CRDs: []*apiextensionsv1.CustomResourceDefinition{appProject}})
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin := dynamicFor(e.Config)
	for _, ns := range []string{releaseNamespace, engineNS} {
		if _, err = admin.Resource(namespaceGVR).Create(ctx, object("v1", "Namespace", "", ns, nil),
			metav1.CreateOptions{}); err != nil {
			return e, nil, fmt.Errorf("create namespace %s: %w", ns, err)
		}
	}
	argocdCM := object("v1", "ConfigMap", engineNS, "argocd-cm", nil)
	argocdCM.Object["data"] = map[string]any{"url": "https://argocd.example.com"}
	if _, err = admin.Resource(cmGVR).Namespace(engineNS).Create(ctx, argocdCM, metav1.CreateOptions{}); err != nil {
		return e, nil, fmt.Errorf("create argocd-cm: %w", err)
	}
	h, err := newHelmClient(e.Config, dir)
	if err != nil {
		return e, nil, err
	}
	return e, h, h.install(suiteValues)
}

// startSuite adds the test identities' grants and the ClusterRuntime, then waits until the
// policies are enforced.
func startSuite() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin := dynamicFor(testEnv.Config)
	for _, o := range fixtures() {
		if err := create(ctx, admin, o); err != nil {
			return err
		}
	}
	if err := create(ctx, admin, clusterRuntime()); err != nil {
		return err
	}
	return waitEnforced(ctx)
}

// argoCDModule is the Argo CD release whose AppProject CRD the rendered AppProject must satisfy.
const argoCDModule = "github.com/argoproj/argo-cd/v3@v3.2.12"

// appProjectCRD reads Argo CD's AppProject CRD from the argo-cd module, fetched into the module
// cache with go mod download (the module is not a dependency of this one).
func appProjectCRD() (*apiextensionsv1.CustomResourceDefinition, error) {
	out, err := exec.Command("go", "mod", "download", "-json", argoCDModule).Output()
	if err != nil {
		return nil, fmt.Errorf("go mod download %s: %w", argoCDModule, err)
	}
	var mod struct{ Dir string }
	if jsonErr := json.Unmarshal(out, &mod); jsonErr != nil || mod.Dir == "" {
		return nil, fmt.Errorf("go mod download %s: no module directory in %q", argoCDModule, out)
	}
	raw, err := os.ReadFile(filepath.Join(mod.Dir, "manifests", "crds", "appproject-crd.yaml"))
	if err != nil {
		return nil, fmt.Errorf("read AppProject CRD: %w", err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err = yaml.Unmarshal(raw, crd); err != nil {
		return nil, fmt.Errorf("decode AppProject CRD: %w", err)
	}
	return crd, nil
}

// waitEnforced polls, with a bound, until each binding refuses a probe request: policies are
// compiled asynchronously after they are created.
func waitEnforced(ctx context.Context) error {
	admin := dynamicFor(testEnv.Config)
	operator := dynamicFor(testEnv.Impersonate(operatorUser, operatorGroups...))
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	probes := map[string]func() error{
		"RO-14": func() error {
			_, err := admin.Resource(rolloutGVR).Create(ctx, rolloutObject("probe", nil), dryRun)
			return err
		},
		"PLAN-8": func() error {
			cm := planConfigMap("probe")
			_, err := admin.Resource(cmGVR).Namespace(releaseNamespace).Create(ctx, cm, dryRun)
			return err
		},
		"CR-12": func() error {
			_, err := operator.Resource(runtimeGVR).Patch(ctx, "cluster", typeMerge,
				[]byte(`{"spec":{"paused":true}}`), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
			return err
		},
	}
	for id, probe := range probes {
		if err := eventually(ctx, 30*time.Second, func() bool {
			err := probe()
			return err != nil && strings.Contains(err.Error(), id+":")
		}); err != nil {
			return fmt.Errorf("policy for %s not enforced: %w", id, err)
		}
	}
	return nil
}

// eventually polls cond every 100ms until it holds or timeout passes.
func eventually(ctx context.Context, timeout time.Duration, cond func() bool) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if cond() {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("condition not met within %s", timeout)
		case <-tick.C:
		}
	}
}

// mapper resolves kinds to resources through the control plane's discovery.
var mapper meta.RESTMapper

func restMapper() (meta.RESTMapper, error) {
	if mapper != nil {
		return mapper, nil
	}
	dc, err := discovery.NewDiscoveryClientForConfig(testEnv.Config)
	if err != nil {
		return nil, fmt.Errorf("discovery client: %w", err)
	}
	mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	return mapper, nil
}

// create creates o through the dynamic client; AlreadyExists is success.
func create(ctx context.Context, dc dynamic.Interface, o *unstructured.Unstructured) error {
	m, err := restMapper()
	if err != nil {
		return err
	}
	gvk := o.GroupVersionKind()
	mapping, err := m.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return fmt.Errorf("map %s: %w", gvk, err)
	}
	var ri dynamic.ResourceInterface = dc.Resource(mapping.Resource)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		ri = dc.Resource(mapping.Resource).Namespace(o.GetNamespace())
	}
	if _, err := ri.Create(ctx, o, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create %s %s/%s: %w", gvk.Kind, o.GetNamespace(), o.GetName(), err)
	}
	return nil
}

// dynamicFor returns a dynamic client for cfg.
func dynamicFor(cfg *rest.Config) *dynamic.DynamicClient {
	return dynamic.NewForConfigOrDie(cfg)
}

// object builds an unstructured object.
func object(apiVersion, kind, namespace, name string, labels map[string]string) *unstructured.Unstructured {
	o := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind}}
	o.SetName(name)
	if namespace != "" {
		o.SetNamespace(namespace)
	}
	if labels != nil {
		o.SetLabels(labels)
	}
	return o
}

// rbacRule is one PolicyRule in unstructured form.
func rbacRule(group, resource string, verbs []string, names ...string) map[string]any {
	r := map[string]any{"apiGroups": []any{group}, "resources": []any{resource}, "verbs": toAny(verbs)}
	if len(names) > 0 {
		r["resourceNames"] = toAny(names)
	}
	return r
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// fixtures grant the non-chart test identities what lets their requests reach admission:
// an editor of ClusterRuntime and RuntimeRollout without the approve subresource, a
// ConfigMap writer in the operator namespace, and an approver scoped to another rollout.
// They also bind the chart's approver role to the Job namespace's ServiceAccounts, as an
// administrator listing a ServiceAccount group in approvers.groups would, so the aicr-jobs
// identity reaches the approval policy with every grant an approver has (ADM-1).
func fixtures() []*unstructured.Unstructured {
	role := func(kind, namespace, name string, rules ...map[string]any) *unstructured.Unstructured {
		o := object("rbac.authorization.k8s.io/v1", kind, namespace, name, nil)
		rs := make([]any, len(rules))
		for i, r := range rules {
			rs[i] = r
		}
		o.Object["rules"] = rs
		return o
	}
	binding := func(kind, namespace, name, roleKind, user string) *unstructured.Unstructured {
		o := object("rbac.authorization.k8s.io/v1", kind, namespace, name, nil)
		o.Object["roleRef"] = map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": roleKind, "name": name}
		o.Object["subjects"] = []any{map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}}
		return o
	}
	all := []string{"get", "list", "watch", "create", "update", "patch"}
	return []*unstructured.Unstructured{
		role("ClusterRole", "", "test-runtime-editor",
			rbacRule("operator.aicr.run", "clusterruntimes", all),
			rbacRule("operator.aicr.run", "runtimerollouts", all)),
		binding("ClusterRoleBinding", "", "test-runtime-editor", "ClusterRole", editorUser),
		role("Role", releaseNamespace, "test-configmap-writer", rbacRule("", "configmaps", all)),
		binding("RoleBinding", releaseNamespace, "test-configmap-writer", "Role", cmWriterUser),
		role("ClusterRole", "", "test-scoped-approver",
			rbacRule("operator.aicr.run", "runtimerollouts", []string{"get", "patch"}),
			rbacRule("operator.aicr.run", "runtimerollouts/approve", []string{"update"}, "rollout-not-this-one")),
		binding("ClusterRoleBinding", "", "test-scoped-approver", "ClusterRole", scopedUser),
		jobsApprover(),
		runValidatorAdmin(),
	}
}

// runValidatorAdmin binds cluster-admin to the validator identity of one aicr validate run, as
// AICR binds it.
func runValidatorAdmin() *unstructured.Unstructured {
	o := object("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "", "aicr-validator-0a1b2c3d", nil)
	o.Object["roleRef"] = map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"}
	o.Object["subjects"] = []any{map[string]any{
		"kind": "ServiceAccount", "name": "aicr-validator-0a1b2c3d", "namespace": validationNS,
	}}
	return o
}

// clusterRuntime is the one ClusterRuntime, created by an administrator.
func clusterRuntime() *unstructured.Unstructured {
	o := object("operator.aicr.run/v1alpha1", "ClusterRuntime", "", "cluster", nil)
	o.SetFinalizers([]string{"example.com/backup"})
	o.Object["spec"] = map[string]any{
		"intent": "training",
		"placement": map[string]any{
			"system":      map[string]any{"nodeSelector": map[string]any{"example.com/pool": "system"}},
			"accelerated": map[string]any{"nodeSelector": map[string]any{"example.com/pool": "gpu"}},
		},
	}
	return o
}

// jobsApprover binds the chart's aicr-operator-approver ClusterRole to the ServiceAccounts of
// the Job namespace.
func jobsApprover() *unstructured.Unstructured {
	o := object("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "", "test-jobs-approver", nil)
	o.Object["roleRef"] = map[string]any{
		"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "aicr-operator-approver",
	}
	o.Object["subjects"] = []any{map[string]any{
		"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:serviceaccounts:" + jobsNS,
	}}
	return o
}
