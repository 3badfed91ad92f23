package chart_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/lint/support"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestRenderDefaults(t *testing.T) {
	t.Parallel()
	objs, err := render(requiredValues())
	require.NoError(t, err, "CH-2: the required values alone render")
	for _, crd := range []string{"clusterruntimes.operator.aicr.run", "runtimerollouts.operator.aicr.run"} {
		o := find(objs, "CustomResourceDefinition", "", crd)
		require.NotNil(t, o, "CH-3: CRD %s is a template", crd)
		assert.Equal(t, "keep", o.GetAnnotations()["helm.sh/resource-policy"], "CH-3: CRD %s survives uninstall", crd)
	}
	kept := [][3]string{
		{"Namespace", "", "gpu-operator"},
		{"Namespace", "", "aicr-jobs"},
		{"Namespace", "", "aicr-discovery"},
		{"Namespace", "", "aicr-validation"},
		{"AppProject", "argocd", "aicr"},
		{"ValidatingAdmissionPolicy", "", "aicr-operator-approval"},
		// CH-3: the approval policy is kept with its binding, or it enforces nothing after
		// uninstall; helm upgrade still recreates the binding after a restore (ADM-5).
		{"ValidatingAdmissionPolicyBinding", "", "aicr-operator-approval"},
		// PLAN-8: plan ConfigMaps outlive uninstall, so their policy and binding do too.
		{"ValidatingAdmissionPolicy", "", "aicr-operator-plans"},
		{"ValidatingAdmissionPolicyBinding", "", "aicr-operator-plans"},
	}
	for _, k := range kept {
		o := find(objs, k[0], k[1], k[2])
		require.NotNil(t, o, "%v rendered", k)
		assert.Equal(t, "keep", o.GetAnnotations()["helm.sh/resource-policy"], "CH-3: %v survives uninstall", k)
	}
	assert.Nil(t, find(objs, "Namespace", "", releaseNamespace), "the installer creates the release namespace")
	assert.Nil(t, find(objs, "Secret", "argocd", "aicr-registry"), "static: the administrator provides repo-creds")
	assert.Nil(t, find(objs, "ClusterRoleBinding", "", "aicr-operator-approver"), "no approvers, no binding")
	assert.Nil(t, find(objs, "ClusterRoleBinding", "", "aicr-operator-validate"), "validation off: no cluster-admin binding")
	ns := find(objs, "Namespace", "", "gpu-operator")
	assert.Equal(t, "privileged", ns.GetLabels()["pod-security.kubernetes.io/enforce"])
	jobs := find(objs, "Namespace", "", "aicr-jobs")
	assert.Equal(t, "restricted", jobs.GetLabels()["pod-security.kubernetes.io/enforce"])
}

// notAllowed is the schema's refusal of key at path.
func notAllowed(path, key string) []string {
	return []string{"at '" + path + "'", "'" + key + "' not allowed"}
}

func TestRenderRejectsInvalidValues(t *testing.T) {
	t.Parallel()
	unknown := func(path string) map[string]any { return withValues(map[string]any{path: "x"}) }
	component := func(extra map[string]any) map[string]any {
		c := map[string]any{"name": "gpu-operator", "podSecurity": "privileged"}
		for k, v := range extra {
			c[k] = v
		}
		return withValues(map[string]any{"namespaces.components": []any{c}})
	}
	type invalid struct {
		name   string
		values map[string]any
		want   []string
	}
	var cases []invalid
	for _, path := range []string{
		"aicr.extra", "aicr.image.tag", "aicr.validators.extra",
		"operator.extra", "operator.image.extra", "operator.leaderElection.extra",
		"operator.resources.extra", "operator.resources.requests.gpu",
		"engine.extra", "registry.extra", "registry.auth.extra",
		"namespaces.extra", "namespaces.jobs.extra", "namespaces.discovery.extra", "namespaces.validation.extra",
		"approvers.extra", "validation.extra", "rollout.extra",
	} {
		parent, key := path[:strings.LastIndex(path, ".")], path[strings.LastIndex(path, ".")+1:]
		cases = append(cases, invalid{"CH-1 unknown key under " + parent, unknown(path),
			notAllowed("/"+strings.ReplaceAll(parent, ".", "/"), key)})
	}
	cases = append(cases, []invalid{
		{"CH-1 unknown top-level key", unknown("extra"), []string{"additional properties 'extra' not allowed"}},
		{"CH-1 unknown key under namespaces.components[]", component(map[string]any{"extra": "x"}),
			notAllowed("/namespaces/components/0", "extra")},
		{"CH-1 engine.type Flux", withValues(map[string]any{"engine.type": "Flux"}),
			[]string{"at '/engine/type'", "'ArgoCD'"}},
		{"CH-1 aicr.version 0.11.1", withValues(map[string]any{"aicr.version": "0.11.1"}),
			[]string{"at '/aicr/version': '0.11.1' does not match pattern"}},
		{"CH-1 aicr.version 2.0.0", withValues(map[string]any{"aicr.version": "2.0.0"}),
			[]string{"at '/aicr/version': '2.0.0' does not match pattern"}},
		{"CH-1 aicr.version 1.0.0-rc.1, below 1.0.0 as the operator's --aicr-version check says",
			withValues(map[string]any{"aicr.version": "1.0.0-rc.1"}),
			[]string{"at '/aicr/version': '1.0.0-rc.1' does not match pattern"}},
		{"CH-1 aicr.version 2.0.0-rc.1", withValues(map[string]any{"aicr.version": "2.0.0-rc.1"}),
			[]string{"at '/aicr/version': '2.0.0-rc.1' does not match pattern"}},
		{"CH-2 registry.repository missing", withValues(map[string]any{"registry.repository": nil}),
			[]string{"at '/registry'", "missing property 'repository'"}},
		{"CH-2 registry.repository not an OCI reference",
			withValues(map[string]any{"registry.repository": "registry.example.com/aicr"}),
			[]string{"at '/registry/repository'", "does not match pattern"}},
		{"CH-2 namespaces.components missing", withValues(map[string]any{"namespaces.components": nil}),
			[]string{"at '/namespaces'", "missing property 'components'"}},
		{"CH-2 namespaces.components empty", withValues(map[string]any{"namespaces.components": []any{}}),
			[]string{"at '/namespaces/components'", "minItems"}},
		{"CH-2 namespaces.components without podSecurity", withValues(map[string]any{
			"namespaces.components": []any{map[string]any{"name": "gpu-operator"}}}),
			[]string{"at '/namespaces/components/0'", "missing property 'podSecurity'"}},
		{"CH-2 podSecurity outside the Pod Security levels", component(map[string]any{"podSecurity": "open"}),
			[]string{"at '/namespaces/components/0/podSecurity'"}},
		{"CH-2 component namespace is the release namespace", withValues(map[string]any{
			"namespaces.components": []any{map[string]any{"name": releaseNamespace, "podSecurity": "privileged"}}}),
			[]string{"namespaces.components lists aicr-system, the operator's own (release) namespace"}},
		{"CH-2 component namespace listed twice", withValues(map[string]any{"namespaces.components": []any{
			map[string]any{"name": "gpu-operator", "podSecurity": "privileged"},
			map[string]any{"name": "gpu-operator", "podSecurity": "baseline"}}}),
			[]string{"namespaces.components lists gpu-operator twice"}},
		{"CH-2 component namespace is the engine namespace", withValues(map[string]any{
			"namespaces.components": []any{map[string]any{"name": "argocd", "podSecurity": "privileged"}}}),
			[]string{"namespaces.components lists argocd, the engine namespace"}},
		{"CH-2 one namespace with two Pod Security levels", withValues(map[string]any{
			"namespaces.jobs": map[string]any{"name": "gpu-operator", "podSecurity": "restricted"}}),
			[]string{"namespace gpu-operator is listed with Pod Security levels"}},
		{"OPS-2 two replicas without leader election", withValues(map[string]any{
			"operator.replicas": 2, "operator.leaderElection.enabled": false}),
			[]string{"operator.replicas above 1 needs operator.leaderElection.enabled"}},
		{"CH-2 aws provider without the operator's AWS identity", withValues(map[string]any{"registry.auth.provider": "aws",
			"registry.auth.awsPullRoleArn": pullRoleARN}),
			[]string{"registry.auth.provider aws needs the operator's AWS identity"}},
		{"REG-1 aws provider without a pull-only role for Argo CD", withValues(map[string]any{"registry.auth.provider": "aws",
			"operator.awsPodIdentity": true}),
			[]string{"registry.auth.provider aws needs registry.auth.awsPullRoleArn"}},
		{"REG-1 aws pull role that is not an IAM role ARN", withValues(map[string]any{"registry.auth.provider": "aws",
			"operator.awsPodIdentity": true, "registry.auth.awsPullRoleArn": "aicr-argocd-pull"}),
			[]string{"at '/registry/auth/awsPullRoleArn'"}},
		{"CH-2 registry.auth.provider unknown", withValues(map[string]any{"registry.auth.provider": "gcp"}),
			[]string{"at '/registry/auth/provider'"}},
		{"CH-2 operator image not pinned by digest", withValues(map[string]any{"operator.image.digest": "latest"}),
			[]string{"at '/operator/image/digest'", "does not match pattern"}},
		{"CH-2 rollout.stepTimeout not a duration", withValues(map[string]any{"rollout.stepTimeout": "15 minutes"}),
			[]string{"at '/rollout/stepTimeout'", "does not match pattern"}},
		{"CH-2 rollout.window zero", withValues(map[string]any{"rollout.window": "0s"}),
			[]string{"at '/rollout/window'", "does not match pattern"}},
		{"CH-2 rollout.componentStepTimeouts key not a component name",
			withValues(map[string]any{"rollout.componentStepTimeouts": map[string]any{"GPU_Operator": "2h"}}),
			[]string{"invalid propertyName 'GPU_Operator'"}},
		{"CH-2 rollout.componentStepTimeouts value zero",
			withValues(map[string]any{"rollout.componentStepTimeouts": map[string]any{"gpu-operator": "0m"}}),
			[]string{"at '/rollout/componentStepTimeouts/gpu-operator'", "does not match pattern"}},
		{"CH-2 AICR image not pinned by digest", withValues(map[string]any{"aicr.image.digest": "v1.0.0"}),
			[]string{"at '/aicr/image/digest'", "does not match pattern"}},
	}...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := render(c.values)
			require.Error(t, err)
			for _, w := range c.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

// TestHelmLint runs helm lint (the SDK's) with the required values, strict.
func TestHelmLint(t *testing.T) {
	t.Parallel()
	lint := action.NewLint()
	lint.Strict = true
	lint.Namespace = releaseNamespace
	lint.KubeVersion = &chartutil.KubeVersion{Version: "v1.34.4", Major: "1", Minor: "34"}
	res := lint.Run([]string{chartDir()}, requiredValues())
	for _, m := range res.Messages {
		if m.Severity > support.InfoSev {
			t.Errorf("helm lint: %s", m)
		}
	}
	assert.Empty(t, res.Errors)
}

func TestRenderAWSIdentity(t *testing.T) {
	t.Parallel()
	for name, sets := range map[string]map[string]any{
		"CH-2 IRSA role annotation": {
			"registry.auth.provider":             "aws",
			"registry.auth.awsPullRoleArn":       pullRoleARN,
			"operator.serviceAccountAnnotations": map[string]any{"eks.amazonaws.com/role-arn": roleARN},
		},
		"CH-2 EKS Pod Identity flag": {"registry.auth.provider": "aws", "operator.awsPodIdentity": true,
			"registry.auth.awsPullRoleArn": pullRoleARN},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			objs, err := render(withValues(sets))
			require.NoError(t, err)
			s := find(objs, "Secret", "argocd", "aicr-registry")
			require.NotNil(t, s, "REG-1: aws gets a repo-creds Secret the operator refreshes")
			assert.Equal(t, "repo-creds", s.GetLabels()["argocd.argoproj.io/secret-type"])
			assert.Equal(t, "keep", s.GetAnnotations()["helm.sh/resource-policy"])
			data, _, _ := unstructured.NestedStringMap(s.Object, "stringData")
			assert.Equal(t, map[string]string{"type": "oci", "url": "oci://registry.example.com/aicr", "username": "AWS"}, data,
				"the chart never sets the password, so helm upgrade keeps the operator's ECR token")
		})
	}
}

// TestRenderInClusterRegistry: with an in-cluster registry the operator pushes with its own
// login, read by name from the push Secret, and the chart renders no repo-creds Secret: the
// administrator gives Argo CD a separate pull-only login (issue "trust chain", item 7).
func TestRenderInClusterRegistry(t *testing.T) {
	t.Parallel()
	objs, err := render(withValues(map[string]any{"registry.auth.provider": "inCluster"}))
	require.NoError(t, err)
	assert.Nil(t, find(objs, "Secret", "argocd", "aicr-registry"), "Argo CD's pull login is the administrator's")
	role := find(objs, "Role", releaseNamespace, "aicr-operator")
	require.NotNil(t, role)
	rules, _, _ := unstructured.NestedSlice(role.Object, "rules")
	assert.Contains(t, rules, map[string]any{"apiGroups": []any{""}, "resources": []any{"secrets"},
		"resourceNames": []any{"aicr-registry-push"}, "verbs": []any{"get"}})
	engine := find(objs, "Role", "argocd", "aicr-operator-engine")
	require.NotNil(t, engine)
	engineRules, _, _ := unstructured.NestedSlice(engine.Object, "rules")
	for _, r := range engineRules {
		assert.NotContains(t, r.(map[string]any)["resources"], "secrets", "the operator never touches Argo CD's login")
	}
}

func TestRenderDeployment(t *testing.T) {
	t.Parallel()
	objs, err := render(withValues(map[string]any{"validation.enabled": true}))
	require.NoError(t, err)
	d := find(objs, "Deployment", releaseNamespace, "aicr-operator")
	require.NotNil(t, d)
	containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	require.Len(t, containers, 1)
	c := containers[0].(map[string]any)
	zero := "@sha256:0000000000000000000000000000000000000000000000000000000000000000"
	assert.Equal(t, "ghcr.io/nvidia/aicr-operator:0.1.0"+zero, c["image"])
	args, _, _ := unstructured.NestedStringSlice(c, "args")
	assert.Equal(t, []string{
		"--operator-namespace=$(POD_NAMESPACE)",
		"--aicr-version=1.0.0",
		"--aicr-image=ghcr.io/nvidia/aicr:v1.0.0" + zero,
		"--validator-image-registry=ghcr.io/nvidia",
		"--operator-image=ghcr.io/nvidia/aicr-operator:0.1.0" + zero,
		"--engine=ArgoCD",
		"--engine-namespace=argocd",
		"--engine-project=aicr",
		"--registry-repository=oci://registry.example.com/aicr",
		"--registry-auth-provider=static",
		"--registry-repo-creds-secret=aicr-registry",
		"--registry-static-secret=aicr-registry-auth",
		"--component-namespaces=gpu-operator",
		"--jobs-namespace=aicr-jobs",
		"--discovery-namespace=aicr-discovery",
		"--validation-namespace=aicr-validation",
		"--validation-enabled=true",
		"--validation-timeout=2h",
		"--jobs-service-account=aicr-jobs",
		"--validation-service-account=aicr-operator-validate",
		"--jobs-active-deadline-seconds=3600",
		`--jobs-resources={"limits":{"memory":"1Gi"},"requests":{"cpu":"100m","memory":"256Mi"}}`,
		"--jobs-node-selector={}",
		"--jobs-tolerations=[]",
		"--jobs-image-pull-secrets=",
		"--leader-elect=true",
		"--leader-election-lease-duration=15s",
		"--leader-election-renew-deadline=10s",
		"--leader-election-retry-period=2s",
		"--metrics-bind-address=:8080",
		"--metrics-secure=true",
		"--health-probe-bind-address=:8081",
		"--log-level=info",
		"--admission-digests=" + admissionDigests(t, objs),
		"--engine-project-digest=" + projectDigest(t, objs),
		"--step-timeout=15m",
		"--rollout-window=24h",
	}, args, "the composition root reads exactly these flags (chart README)")
	sc, _, _ := unstructured.NestedMap(c, "securityContext")
	assert.Equal(t, false, sc["allowPrivilegeEscalation"])
	assert.Equal(t, true, sc["readOnlyRootFilesystem"])
	assert.Equal(t, true, sc["runAsNonRoot"])
	assert.Equal(t, map[string]any{"drop": []any{"ALL"}}, sc["capabilities"])
	podSC, _, _ := unstructured.NestedMap(d.Object, "spec", "template", "spec", "securityContext")
	assert.Equal(t, map[string]any{"type": "RuntimeDefault"}, podSC["seccompProfile"])
	for _, probe := range []string{"livenessProbe", "readinessProbe"} {
		_, ok := c[probe]
		assert.True(t, ok, "%s set", probe)
	}
	assert.NotNil(t, find(objs, "ClusterRoleBinding", "", "aicr-operator-validate"),
		"validation on: aicr validate runs with cluster-admin")
}

// TestRenderUpdateStrategy: without leader election an update never runs two operators at
// once (Recreate); with it, the default rolling update hands the lease over.
func TestRenderUpdateStrategy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		leaderElection bool
		want           map[string]any
	}{{leaderElection: true}, {leaderElection: false, want: map[string]any{"type": "Recreate"}}} {
		objs, err := render(withValues(map[string]any{"operator.leaderElection.enabled": tc.leaderElection}))
		require.NoError(t, err)
		d := find(objs, "Deployment", releaseNamespace, "aicr-operator")
		require.NotNil(t, d)
		strategy, _, _ := unstructured.NestedMap(d.Object, "spec", "strategy")
		assert.Equal(t, tc.want, strategy, "leader election %v", tc.leaderElection)
	}
}

func TestRenderAppProject(t *testing.T) {
	t.Parallel()
	objs, err := render(withValues(map[string]any{
		"registry.repository": "oci://registry.example.com/aicr/",
		"namespaces.components": []any{
			map[string]any{"name": "gpu-operator", "podSecurity": "privileged"},
			map[string]any{"name": "kai-scheduler", "podSecurity": "baseline"},
		},
		"engine.project": "gpu-stack",
	}))
	require.NoError(t, err)
	p := find(objs, "AppProject", "argocd", "gpu-stack")
	require.NotNil(t, p)
	assert.Equal(t, "argoproj.io/v1alpha1", p.GetAPIVersion())
	repos, _, _ := unstructured.NestedStringSlice(p.Object, "spec", "sourceRepos")
	assert.Equal(t, []string{
		"oci://registry.example.com/aicr/charts/*",
		"oci://registry.example.com/aicr/wrappers/*",
	}, repos)
	dest, _, _ := unstructured.NestedSlice(p.Object, "spec", "destinations")
	assert.Equal(t, []any{
		map[string]any{"server": "https://kubernetes.default.svc", "namespace": "gpu-operator"},
		map[string]any{"server": "https://kubernetes.default.svc", "namespace": "kai-scheduler"},
	}, dest)
	kinds, _, _ := unstructured.NestedSlice(p.Object, "spec", "clusterResourceWhitelist")
	assert.Equal(t, groupKinds(defaultClusterResources), kinds, "ENG-1 CH-5 the GPU stack's kinds, no wildcard")
}

// TestAppProjectAcceptedByArgoCD checks the AppProject helm install created on the control
// plane, where Argo CD's own AppProject CRD (from the argo-cd module) validated it.
func TestAppProjectAcceptedByArgoCD(t *testing.T) {
	t.Parallel()
	needEnv(t)
	got, err := admin().dyn.Resource(appProjectGVR).Namespace(engineNS).Get(context.Background(), "aicr", metav1.GetOptions{})
	require.NoError(t, err, "helm install created the AppProject")
	repos, _, _ := unstructured.NestedStringSlice(got.Object, "spec", "sourceRepos")
	assert.Equal(t, []string{"oci://registry.example.com/aicr/charts/*", "oci://registry.example.com/aicr/wrappers/*"}, repos)
}

func TestRenderApproverRoles(t *testing.T) {
	t.Parallel()
	objs, err := render(withValues(map[string]any{"approvers.users": []any{"alice"}, "approvers.groups": []any{"sre"}}))
	require.NoError(t, err)
	cr := find(objs, "ClusterRole", "", "aicr-operator-approver")
	require.NotNil(t, cr)
	rules, _, _ := unstructured.NestedSlice(cr.Object, "rules")
	assert.Equal(t, []any{
		rbacRule("operator.aicr.run", "runtimerollouts", []string{"get", "list", "watch", "patch"}),
		rbacRule("operator.aicr.run", "runtimerollouts/approve", []string{"update"}),
		rbacRule("operator.aicr.run", "clusterruntimes", []string{"get", "list", "watch"}),
	}, rules, "CH-4: exactly the approver grants")
	for _, kind := range []string{"ClusterRoleBinding", "RoleBinding"} {
		ns := ""
		if kind == "RoleBinding" {
			ns = releaseNamespace
		}
		b := find(objs, kind, ns, "aicr-operator-approver")
		require.NotNil(t, b, kind)
		subjects, _, _ := unstructured.NestedSlice(b.Object, "subjects")
		assert.Equal(t, []any{
			map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice"},
			map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "sre"},
		}, subjects)
	}
}

// TestSchemaClosedEverywhere guards CH-1: every object in values.schema.json sets
// additionalProperties, false for configuration and a value schema for free-form maps.
func TestSchemaClosedEverywhere(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(chartDir(), "values.schema.json"))
	require.NoError(t, err)
	var schema map[string]any
	require.NoError(t, json.Unmarshal(raw, &schema))
	var walk func(path string, node any)
	walk = func(path string, node any) {
		switch n := node.(type) {
		case map[string]any:
			if n["type"] == "object" {
				_, ok := n["additionalProperties"]
				assert.True(t, ok, "%s: object without additionalProperties", path)
			}
			for k, v := range n {
				walk(path+"/"+k, v)
			}
		case []any:
			for _, v := range n {
				walk(path+"/[]", v)
			}
		}
	}
	walk("", schema)
}

// TestApprovalPolicyCoversEverySpecField guards ADM-4 against CRD drift: the policy compares
// every RuntimeRollout spec field other than approval.
func TestApprovalPolicyCoversEverySpecField(t *testing.T) {
	t.Parallel()
	objs, err := render(requiredValues())
	require.NoError(t, err)
	crd := find(objs, "CustomResourceDefinition", "", "runtimerollouts.operator.aicr.run")
	require.NotNil(t, crd)
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	require.NotEmpty(t, versions)
	version, _ := versions[0].(map[string]any)
	props, _, _ := unstructured.NestedMap(version, "schema", "openAPIV3Schema", "properties", "spec", "properties")
	require.NotEmpty(t, props)
	policy := find(objs, "ValidatingAdmissionPolicy", "", "aicr-operator-approval")
	require.NotNil(t, policy)
	validations, _, _ := unstructured.NestedSlice(policy.Object, "spec", "validations")
	var onlyApproval string
	for _, v := range validations {
		m, _ := v.(map[string]any)
		if msg, _ := m["message"].(string); strings.HasPrefix(msg, "ADM-4: a request that changes spec.approval") {
			onlyApproval, _ = m["expression"].(string)
		}
	}
	require.NotEmpty(t, onlyApproval)
	for field := range props {
		if field == "approval" {
			continue
		}
		assert.Contains(t, onlyApproval, "object.spec."+field+" == oldObject.spec."+field, "spec.%s compared", field)
	}
}
