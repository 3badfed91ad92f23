package chart_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/NVIDIA/aicr/adapters/sealer"
)

var (
	secretGVR = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	sarGVR    = schema.GroupVersionResource{Group: "authorization.k8s.io", Version: "v1", Resource: "subjectaccessreviews"}
)

// forbidden is the RBAC refusal the API server gives the operator.
func forbidden(verb, resource, group, namespace string) string {
	msg := `User "` + operatorUser + `" cannot ` + verb + ` resource "` + resource + `" in API group "` + group + `"`
	if namespace != "" {
		return msg + ` in the namespace "` + namespace + `"`
	}
	return msg + " at the cluster scope"
}

// operatorRBACBypasses are what CH-4 says the operator may not do, tried as the operator.
func operatorRBACBypasses() []bypass {
	ctx := context.Background()
	op := func() client { return operatorClient() }
	return []bypass{
		{"CH-4 operator lists Secrets in its namespace", byRBAC, forbidden("list", "secrets", "", releaseNamespace),
			func(fx) error {
				_, err := op().dyn.Resource(secretGVR).Namespace(releaseNamespace).List(ctx, metav1.ListOptions{})
				return err
			}},
		{"CH-4 operator lists Secrets in the Job namespace", byRBAC, forbidden("list", "secrets", "", jobsNS),
			func(fx) error {
				_, err := op().dyn.Resource(secretGVR).Namespace(jobsNS).List(ctx, metav1.ListOptions{})
				return err
			}},
		{"CH-4 operator watches Secrets in the engine namespace", byRBAC, forbidden("watch", "secrets", "", engineNS),
			func(fx) error {
				w, err := op().dyn.Resource(secretGVR).Namespace(engineNS).Watch(ctx, metav1.ListOptions{})
				if w != nil {
					w.Stop()
				}
				return err
			}},
		{"CH-4 operator reads argocd-cm", byRBAC, forbidden("get", "configmaps", "", engineNS),
			func(fx) error {
				_, err := op().dyn.Resource(cmGVR).Namespace(engineNS).Get(ctx, "argocd-cm", metav1.GetOptions{})
				return err
			}},
		{"CH-4 operator patches argocd-cm", byRBAC, forbidden("patch", "configmaps", "", engineNS),
			func(fx) error {
				_, err := op().dyn.Resource(cmGVR).Namespace(engineNS).Patch(ctx, "argocd-cm", typeMerge,
					[]byte(`{"data":{"resource.exclusions":"[]"}}`), metav1.PatchOptions{})
				return err
			}},
		{"CH-4 operator reads a Secret other than repo-creds in the engine namespace", byRBAC,
			forbidden("get", "secrets", "", engineNS),
			func(fx) error {
				_, err := op().dyn.Resource(secretGVR).Namespace(engineNS).Get(ctx, "argocd-secret", metav1.GetOptions{})
				return err
			}},
		{"CH-4 operator reads a Secret other than the seal key in its namespace", byRBAC,
			forbidden("get", "secrets", "", releaseNamespace),
			func(fx) error {
				_, err := op().dyn.Resource(secretGVR).Namespace(releaseNamespace).Get(ctx, "aicr-operator-metrics-scraper-token", metav1.GetOptions{})
				return err
			}},
		{"CH-4 operator creates a Namespace", byRBAC, forbidden("create", "namespaces", "", ""),
			func(fx) error {
				_, err := op().dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).
					Create(ctx, object("v1", "Namespace", "", "aicr-sneaky", nil), metav1.CreateOptions{})
				return err
			}},
		{"CH-4 operator creates a Pod in the Job namespace", byRBAC, forbidden("create", "pods", "", jobsNS),
			func(fx) error {
				pod := object("v1", "Pod", jobsNS, "sneaky", nil)
				pod.Object["spec"] = map[string]any{"containers": []any{map[string]any{"name": "c", "image": "busybox"}}}
				_, err := op().dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}).
					Namespace(jobsNS).Create(ctx, pod, metav1.CreateOptions{})
				return err
			}},
		{"CH-4 operator binds itself to cluster-admin", byRBAC,
			forbidden("create", "clusterrolebindings", "rbac.authorization.k8s.io", ""),
			func(fx) error {
				crb := object("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "", "sneaky", nil)
				crb.Object["roleRef"] = map[string]any{
					"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin",
				}
				crb.Object["subjects"] = []any{map[string]any{
					"kind": "ServiceAccount", "name": "aicr-operator", "namespace": releaseNamespace,
				}}
				_, err := op().dyn.Resource(schema.GroupVersionResource{
					Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings",
				}).Create(ctx, crb, metav1.CreateOptions{})
				return err
			}},
		{"CH-4 CR-12 operator deletes the ClusterRuntime", byRBAC,
			forbidden("delete", "clusterruntimes", "operator.aicr.run", ""),
			func(fx) error {
				return op().dyn.Resource(runtimeGVR).Delete(ctx, "cluster", metav1.DeleteOptions{
					DryRun: []string{metav1.DryRunAll},
				})
			}},
	}
}

// TestOperatorMayNot asks the API server's authorizer (SubjectAccessReview) about the verbs
// that cannot be tried directly while impersonating: impersonate, escalate, bind, exec.
func TestOperatorMayNot(t *testing.T) {
	t.Parallel()
	needEnv(t)
	cases := []struct {
		name string
		attr map[string]any
	}{
		{"CH-4 operator may not impersonate users", map[string]any{"verb": "impersonate", "resource": "users"}},
		{"CH-4 operator may not impersonate ServiceAccounts", map[string]any{
			"verb": "impersonate", "resource": "serviceaccounts", "namespace": releaseNamespace}},
		{"CH-4 operator may not escalate ClusterRoles", map[string]any{
			"verb": "escalate", "group": "rbac.authorization.k8s.io", "resource": "clusterroles"}},
		{"CH-4 operator may not bind ClusterRoles", map[string]any{
			"verb": "bind", "group": "rbac.authorization.k8s.io", "resource": "clusterroles"}},
		{"CH-4 operator may not exec into Job pods", map[string]any{
			"verb": "create", "resource": "pods", "subresource": "exec", "namespace": jobsNS}},
		{"CH-4 ADM-1 operator may not update runtimerollouts/approve", map[string]any{
			"verb": "update", "group": "operator.aicr.run", "resource": "runtimerollouts", "subresource": "approve"}},
		{"CH-4 operator may not list Secrets cluster-wide", map[string]any{"verb": "list", "resource": "secrets"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sar := object("authorization.k8s.io/v1", "SubjectAccessReview", "", "", nil)
			sar.Object["spec"] = map[string]any{
				"user": operatorUser, "groups": toAny(operatorGroups), "resourceAttributes": c.attr,
			}
			out, err := admin().dyn.Resource(sarGVR).Create(context.Background(), sar, metav1.CreateOptions{})
			require.NoError(t, err)
			allowed, _, _ := unstructured.NestedBool(out.Object, "status", "allowed")
			assert.False(t, allowed, "the operator is allowed %v", c.attr)
		})
	}
}

// TestOperatorMay checks the grants CH-4 gives the operator, as the operator.
func TestOperatorMay(t *testing.T) {
	t.Parallel()
	needEnv(t)
	ctx := context.Background()
	op := operatorClient()
	t.Run("CH-4 operator gets and updates the repo-creds Secret by name", func(t *testing.T) {
		t.Parallel()
		s, err := op.dyn.Resource(secretGVR).Namespace(engineNS).Get(ctx, "aicr-registry", metav1.GetOptions{})
		require.NoError(t, err)
		_, err = op.dyn.Resource(secretGVR).Namespace(engineNS).Patch(ctx, s.GetName(), typeMerge,
			[]byte(`{"stringData":{"password":"ecr-token"}}`), metav1.PatchOptions{})
		require.NoError(t, err)
	})
	t.Run("CH-4 operator creates and reads its seal key Secret by name", func(t *testing.T) {
		t.Parallel()
		s := object("v1", "Secret", releaseNamespace, sealer.SecretName, nil)
		s.Object["immutable"] = true
		s.Object["data"] = map[string]any{sealer.KeyField: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}
		_, err := op.dyn.Resource(secretGVR).Namespace(releaseNamespace).Create(ctx, s, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		require.NoError(t, err)
		_, err = op.dyn.Resource(secretGVR).Namespace(releaseNamespace).Get(ctx, sealer.SecretName, metav1.GetOptions{})
		require.True(t, err == nil || apierrors.IsNotFound(err), "get the seal key by name: %v", err)
	})
	t.Run("RES-8 operator creates, reads and deletes a per-run Secret in the Job namespace", func(t *testing.T) {
		t.Parallel()
		s := object("v1", "Secret", jobsNS, "aicr-run-registry", nil)
		s.Object["stringData"] = map[string]any{"config.json": "{}"}
		_, err := op.dyn.Resource(secretGVR).Namespace(jobsNS).Create(ctx, s, metav1.CreateOptions{})
		require.NoError(t, err)
		_, err = op.dyn.Resource(secretGVR).Namespace(jobsNS).Get(ctx, s.GetName(), metav1.GetOptions{})
		require.NoError(t, err)
		require.NoError(t, op.dyn.Resource(secretGVR).Namespace(jobsNS).Delete(ctx, s.GetName(), metav1.DeleteOptions{}))
	})
	t.Run("CH-4 operator creates a Job in the Job namespace", func(t *testing.T) {
		t.Parallel()
		job := object("batch/v1", "Job", jobsNS, fmt.Sprintf("aicr-recipe-%d", rolloutSeq.Add(1)), nil)
		job.Object["spec"] = map[string]any{"template": map[string]any{"spec": map[string]any{
			"restartPolicy":      "Never",
			"serviceAccountName": "aicr-jobs",
			"securityContext": map[string]any{
				"runAsNonRoot": true, "seccompProfile": map[string]any{"type": "RuntimeDefault"},
			},
			"containers": []any{map[string]any{
				// The image the chart pins: the Job namespaces' admission policy refuses any other (RES-8).
				"name": "aicr", "image": "ghcr.io/nvidia/aicr:v1.0.0@sha256:" + strings.Repeat("0", 64),
				"securityContext": map[string]any{
					"allowPrivilegeEscalation": false, "capabilities": map[string]any{"drop": []any{"ALL"}},
				},
			}},
		}}}
		_, err := op.dyn.Resource(schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}).
			Namespace(jobsNS).Create(ctx, job, metav1.CreateOptions{})
		require.NoError(t, err)
	})
	t.Run("CH-4 RET-1 RET-2 operator deletes a terminal rollout and a plan ConfigMap", func(t *testing.T) {
		t.Parallel()
		name := newRollout(t)
		require.NoError(t, op.label(name, outcome, "Failed"))
		require.NoError(t, op.dyn.Resource(rolloutGVR).Delete(ctx, name, metav1.DeleteOptions{}),
			"the approval policy does not stand in the way of retention")
		plan := operatorPlan(t)
		require.NoError(t, op.dyn.Resource(cmGVR).Namespace(releaseNamespace).Delete(ctx, plan, metav1.DeleteOptions{}))
	})
	t.Run("CH-4 operator reads Nodes and holds its Lease", func(t *testing.T) {
		t.Parallel()
		nodes := schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
		_, err := op.dyn.Resource(nodes).List(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		lease := object("coordination.k8s.io/v1", "Lease", releaseNamespace, "aicr-operator", nil)
		leases := schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}
		_, err = op.dyn.Resource(leases).Namespace(releaseNamespace).Create(ctx, lease, metav1.CreateOptions{})
		require.NoError(t, err)
		// The Lease has the operator's fixed name: delete it, so the next run creates it again.
		t.Cleanup(func() { deleteAndWait(t, admin().dyn.Resource(leases).Namespace(releaseNamespace), lease.GetName()) })
	})
}
