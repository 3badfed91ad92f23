package chart_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/NVIDIA/aicr/adapters/cli"
)

func viewer() client { return as(viewerUser) }

// runPlugin runs kubectl aicr in-process as user against the control plane and returns its
// exit code, standard output and standard error.
func runPlugin(t *testing.T, user string, args ...string) (int, string, string) {
	t.Helper()
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	o := cli.NewOptions(streams)
	o.Clients = func() (cli.Clients, error) {
		cfg := testEnv.Impersonate(user)
		dyn, err := dynamic.NewForConfig(cfg)
		if err != nil {
			return cli.Clients{}, err
		}
		kube, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return cli.Clients{}, err
		}
		return cli.Clients{Dynamic: dyn, Kube: kube, Host: cfg.Host}, nil
	}
	code := cli.Run(context.Background(), o, append(args, "--operator-namespace", releaseNamespace))
	return code, out.String(), errOut.String()
}

// TestRenderViewerRolesCH4: the viewer roles grant exactly the reads of kubectl aicr describe
// and reproduce, and are bound only to viewers.users and viewers.groups.
func TestRenderViewerRolesCH4(t *testing.T) {
	t.Parallel()
	objs, err := render(requiredValues())
	require.NoError(t, err)
	cr := find(objs, "ClusterRole", "", "aicr-operator-viewer")
	require.NotNil(t, cr)
	rules, _, _ := unstructured.NestedSlice(cr.Object, "rules")
	assert.Equal(t, []any{
		rbacRule("operator.aicr.run", "runtimerollouts", []string{"get", "list", "watch"}),
		rbacRule("operator.aicr.run", "clusterruntimes", []string{"get", "list", "watch"}),
	}, rules, "CH-4: read-only, nothing else")
	role := find(objs, "Role", releaseNamespace, "aicr-operator-viewer")
	require.NotNil(t, role)
	rules, _, _ = unstructured.NestedSlice(role.Object, "rules")
	assert.Equal(t, []any{rbacRule("", "configmaps", []string{"get"}),
		rbacRule("apps", "deployments", []string{"get"}, "aicr-operator")}, rules)
	assert.Nil(t, find(objs, "ClusterRoleBinding", "", "aicr-operator-viewer"), "no viewers, no binding")
	assert.Nil(t, find(objs, "RoleBinding", releaseNamespace, "aicr-operator-viewer"))

	objs, err = render(withValues(map[string]any{"viewers.users": []any{"vic"}, "viewers.groups": []any{"oncall"}}))
	require.NoError(t, err)
	for _, kind := range []string{"ClusterRoleBinding", "RoleBinding"} {
		ns := ""
		if kind == "RoleBinding" {
			ns = releaseNamespace
		}
		b := find(objs, kind, ns, "aicr-operator-viewer")
		require.NotNil(t, b, kind)
		subjects, _, _ := unstructured.NestedSlice(b.Object, "subjects")
		assert.Equal(t, []any{
			map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "vic"},
			map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "oncall"},
		}, subjects)
	}
}

// TestViewerReadsButNeverWritesCH4CLI2CLI6: a user of viewers.users runs kubectl aicr describe,
// version and reproduce's reads (the rollout, the runtime, plan ConfigMaps by name) on the real API
// server with the chart's RBAC, and can neither patch a rollout, approve, write the runtime nor
// read anything else.
func TestViewerReadsButNeverWritesCH4CLI2CLI6(t *testing.T) {
	t.Parallel()
	needEnv(t)
	ctx := context.Background()
	name := newRollout(t)
	plan := operatorPlan(t)
	v := viewer()

	t.Run("reads what describe and reproduce read", func(t *testing.T) {
		_, err := v.dyn.Resource(rolloutGVR).Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err)
		_, err = v.dyn.Resource(rolloutGVR).List(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		w, err := v.dyn.Resource(rolloutGVR).Watch(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		w.Stop()
		_, err = v.dyn.Resource(runtimeGVR).Get(ctx, "cluster", metav1.GetOptions{})
		require.NoError(t, err)
		_, err = v.dyn.Resource(cmGVR).Namespace(releaseNamespace).Get(ctx, plan, metav1.GetOptions{})
		require.NoError(t, err, "plans, recipes, values and reports by name")
	})

	t.Run("kubectl aicr describe", func(t *testing.T) {
		code, out, errOut := runPlugin(t, viewerUser, "describe", name)
		require.Equal(t, 0, code, "stderr: %s", errOut)
		assert.Contains(t, out, "Rollout:")
		assert.Contains(t, out, name)
		assert.NotContains(t, errOut, "forbidden")
	})

	t.Run("kubectl aicr version", func(t *testing.T) {
		code, out, errOut := runPlugin(t, viewerUser, "version")
		require.Equal(t, 0, code, "stderr: %s", errOut)
		assert.Contains(t, out, "Operator version:", "the operator's Deployment was read")
		assert.NotContains(t, errOut, "forbidden")
	})

	t.Run("kubectl aicr reproduce", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "out")
		code, _, errOut := runPlugin(t, viewerUser, "reproduce", "--dir", dir)
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, "clusterruntime cluster has", "the runtime was read: it has no plan yet")
		code, _, errOut = runPlugin(t, viewerUser, "reproduce", plan, "--dir", dir)
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, cli.ErrNotAPlan.Error(), "the plan ConfigMap was read: the suite's is a stub")
		assert.NotContains(t, errOut, "forbidden")
		_, statErr := os.Stat(dir)
		assert.True(t, os.IsNotExist(statErr), "nothing was written for a refused plan")
		code, _, errOut = runPlugin(t, editorUser, "reproduce", plan, "--dir", dir)
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, "forbidden", "without the viewer role the plan cannot be read")
	})

	t.Run("writes nothing", func(t *testing.T) {
		refusals := []struct {
			name string
			err  error
			want string
		}{
			{"patch a rollout", v.label(name, "example.com/x", "y"), `cannot patch resource "runtimerollouts"`},
			{"approve", v.approve(name, viewerUser), `cannot patch resource "runtimerollouts"`},
			{"write a rollout's status", v.patchStatus(name, map[string]any{"phase": "Succeeded"}), `cannot patch resource "runtimerollouts/status"`},
			{"patch the runtime", v.patchRuntime(`{"spec":{"paused":true}}`), `cannot patch resource "clusterruntimes"`},
			{"delete a rollout", v.dyn.Resource(rolloutGVR).Delete(ctx, name, metav1.DeleteOptions{}), `cannot delete resource "runtimerollouts"`},
			{"create a rollout", func() error {
				_, err := v.dyn.Resource(rolloutGVR).Create(ctx, rolloutObject("rollout-3f9a1c0d2b7e4a51-999", nil), metav1.CreateOptions{})
				return err
			}(), `cannot create resource "runtimerollouts"`},
			{"list ConfigMaps", func() error {
				_, err := v.dyn.Resource(cmGVR).Namespace(releaseNamespace).List(ctx, metav1.ListOptions{})
				return err
			}(), `cannot list resource "configmaps"`},
			{"write a ConfigMap", v.dyn.Resource(cmGVR).Namespace(releaseNamespace).Delete(ctx, plan, metav1.DeleteOptions{}),
				`cannot delete resource "configmaps"`},
			{"read a Secret", func() error {
				_, err := v.dyn.Resource(secretGVR).Namespace(releaseNamespace).Get(ctx, "aicr-registry-auth", metav1.GetOptions{})
				return err
			}(), `cannot get resource "secrets"`},
			{"read a ConfigMap of another namespace", func() error {
				_, err := v.dyn.Resource(cmGVR).Namespace(engineNS).Get(ctx, "argocd-cm", metav1.GetOptions{})
				return err
			}(), `cannot get resource "configmaps"`},
		}
		for _, r := range refusals {
			require.Error(t, r.err, r.name)
			assert.Contains(t, r.err.Error(), `User "`+viewerUser+`" `+r.want, r.name)
		}
		sar := object("authorization.k8s.io/v1", "SubjectAccessReview", "", "", nil)
		sar.Object["spec"] = map[string]any{"user": viewerUser, "resourceAttributes": map[string]any{
			"verb": "update", "group": "operator.aicr.run", "resource": "runtimerollouts", "subresource": "approve", "name": name}}
		out, err := admin().dyn.Resource(sarGVR).Create(ctx, sar, metav1.CreateOptions{})
		require.NoError(t, err)
		allowed, _, _ := unstructured.NestedBool(out.Object, "status", "allowed")
		assert.False(t, allowed, "ADM-1: a viewer never holds runtimerollouts/approve")
	})
}

// TestRenderDescribeReadRoles: approvers and viewers may read what kubectl aicr describe shows
// and nothing else there: the Events of the default namespace, where the API server keeps a
// RuntimeRollout's, and the Argo CD Applications of engine.namespace; each approver and viewer
// is bound once, and without any nobody is bound.
func TestRenderDescribeReadRoles(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		namespace func(engineNamespace string) string
		rule      map[string]any
	}{
		{"aicr-operator-rollout-events", func(string) string { return "default" }, rbacRule("", "events", []string{"list"})},
		{"aicr-operator-rollout-applications", func(ns string) string { return ns },
			rbacRule("argoproj.io", "applications", []string{"get", "list"})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			objs, err := render(requiredValues())
			require.NoError(t, err)
			role := find(objs, "Role", c.namespace(engineNS), c.name)
			require.NotNil(t, role)
			rules, _, _ := unstructured.NestedSlice(role.Object, "rules")
			assert.Equal(t, []any{c.rule}, rules)
			assert.Nil(t, find(objs, "RoleBinding", c.namespace(engineNS), c.name), "nobody to bind")

			objs, err = render(withValues(map[string]any{"engine.namespace": "gitops", "viewers.users": []any{"vic"},
				"approvers.users": []any{"alice", "vic"}, "approvers.groups": []any{"approvers"}}))
			require.NoError(t, err)
			require.NotNil(t, find(objs, "Role", c.namespace("gitops"), c.name))
			b := find(objs, "RoleBinding", c.namespace("gitops"), c.name)
			require.NotNil(t, b)
			subjects, _, _ := unstructured.NestedSlice(b.Object, "subjects")
			assert.Equal(t, []any{
				map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice"},
				map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "vic"},
				map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "approvers"},
			}, subjects, "each approver and viewer once")
		})
	}
}
