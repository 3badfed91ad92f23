package aicrcontract_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/test/env"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// applyNamespace holds the output ConfigMaps the apply cases write.
const applyNamespace = "aicr-jobs"

// server is the package's control plane, started by the first case that needs one (the cases
// that read only files never pay for it) and stopped by TestMain.
var server struct {
	once sync.Once
	cp   *env.Env
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if server.cp != nil {
		if err := server.cp.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	os.Exit(code)
}

// controlPlane returns the package's API server and an administrator's client of it.
func controlPlane(t *testing.T) (*env.Env, client.Client) {
	t.Helper()
	server.once.Do(func() {
		if server.cp, server.err = env.Start(env.Options{}); server.err != nil {
			return
		}
		admin, err := client.New(server.cp.Config, client.Options{Scheme: clientgoscheme.Scheme})
		if err == nil {
			err = admin.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: applyNamespace}})
		}
		server.err = err
	})
	require.NoError(t, server.err)
	admin, err := client.New(server.cp.Config, client.Options{Scheme: clientgoscheme.Scheme})
	require.NoError(t, err)
	return server.cp, admin
}

// jobIdentity is a Job's ServiceAccount user, granted verbs on ConfigMaps in applyNamespace.
func jobIdentity(t *testing.T, admin client.Client, name string, verbs ...string) string {
	t.Helper()
	ctx := context.Background()
	user := "system:serviceaccount:" + applyNamespace + ":" + name
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: applyNamespace},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: verbs}}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: applyNamespace},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: applyNamespace, Name: name}}}
	require.NoError(t, admin.Create(ctx, role))
	require.NoError(t, admin.Create(ctx, binding))
	return user
}

// precreated is the output ConfigMap as the operator creates it before the Job starts: its own
// labels, annotation and owner, and a data key of its own that AICR's apply takes over.
func precreated(t *testing.T, admin client.Client, name string) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: applyNamespace,
		Labels:      map[string]string{"app.kubernetes.io/managed-by": "aicr-operator", "aicr.nvidia.com/job": name},
		Annotations: map[string]string{"aicr.nvidia.com/digest": "sha256:operator"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: name,
			UID: types.UID("5b1c5f6e-0000-4000-8000-" + fmt.Sprintf("%012d", len(name)))}}},
		Data: map[string]string{"format": "placeholder"}}
	require.NoError(t, admin.Create(context.Background(), cm))
	return cm
}

// TestFact1_2_OutputIsServerSideAppliedByAICRWithForce: the simulator writes its output as a
// server-side apply by field manager aicr that takes over a field another manager owns (force),
// and a refused apply is AICR's INTERNAL, exit 8.
func TestFact1_2_OutputIsServerSideAppliedByAICRWithForce(t *testing.T) {
	cp, admin := controlPlane(t)
	ctx := context.Background()
	precreated(t, admin, "fact-1-2-output")
	user := jobIdentity(t, admin, "fact-1-2", "get", "patch")
	job, err := cp.ClientAs(clientgoscheme.Scheme, user)
	require.NoError(t, err)
	data := map[string]string{"snapshot.yaml": "kind: Snapshot\n", "format": "yaml", "timestamp": "2026-01-02T03:04:05Z"}

	refused, err := jobexec.ApplyOutput(ctx, job, applyNamespace, "fact-1-2-output", data, nil)
	require.NoError(t, err)
	require.Nil(t, refused, "the apply by aicr is refused")

	got := &corev1.ConfigMap{}
	require.NoError(t, admin.Get(ctx, client.ObjectKey{Namespace: applyNamespace, Name: "fact-1-2-output"}, got))
	assert.Equal(t, data, got.Data, "force takes over the key another manager wrote")
	var applied *metav1.ManagedFieldsEntry
	for i, entry := range got.ManagedFields {
		if entry.Manager == jobexec.FieldManager {
			applied = &got.ManagedFields[i]
		}
	}
	require.NotNil(t, applied, "no managed fields of manager %q: %+v", jobexec.FieldManager, got.ManagedFields)
	assert.Equal(t, metav1.ManagedFieldsOperationApply, applied.Operation)
	for _, field := range []string{`"f:snapshot.yaml"`, `"f:format"`, `"f:timestamp"`, `"f:app.kubernetes.io/version"`} {
		assert.Contains(t, applied.FieldsV1.GetRawString(), field)
	}

	forbidden, err := cp.ClientAs(clientgoscheme.Scheme, "system:serviceaccount:"+applyNamespace+":no-rights")
	require.NoError(t, err)
	res, err := jobexec.ApplyOutput(ctx, forbidden, applyNamespace, "fact-1-2-output", data, nil)
	require.NoError(t, err)
	require.NotNil(t, res, "an apply without rights succeeded")
	assert.Equal(t, int32(8), res.ExitCode, "a refused apply is INTERNAL, not UNAUTHORIZED (4)")
	assert.Contains(t, res.Log, "[INTERNAL]")
}

// TestFact1_10_ApplyKeepsTheOperatorsMetadata: with get and patch, and nothing else, the apply
// succeeds and leaves the labels, annotations and owner the operator set; without patch it is
// refused.
func TestFact1_10_ApplyKeepsTheOperatorsMetadata(t *testing.T) {
	cp, admin := controlPlane(t)
	ctx := context.Background()
	before := precreated(t, admin, "fact-1-10-output")
	data := map[string]string{"snapshot.json": "{}", "format": "json", "timestamp": "2026-01-02T03:04:05Z"}

	job, err := cp.ClientAs(clientgoscheme.Scheme, jobIdentity(t, admin, "fact-1-10", "get", "patch"))
	require.NoError(t, err)
	refused, err := jobexec.ApplyOutput(ctx, job, applyNamespace, before.Name, data, []byte("bundle"))
	require.NoError(t, err)
	require.Nil(t, refused, "get and patch do not suffice")

	got := &corev1.ConfigMap{}
	require.NoError(t, admin.Get(ctx, client.ObjectKeyFromObject(before), got))
	for k, v := range before.Labels {
		assert.Equal(t, v, got.Labels[k], "operator label %s", k)
	}
	for k, v := range jobexec.OutputLabels() {
		assert.Equal(t, v, got.Labels[k], "AICR label %s", k)
	}
	assert.Equal(t, before.Annotations, got.Annotations)
	assert.Equal(t, before.OwnerReferences, got.OwnerReferences)
	assert.Equal(t, []byte("bundle"), got.BinaryData[jobs.BundleKey])

	without, err := cp.ClientAs(clientgoscheme.Scheme, jobIdentity(t, admin, "fact-1-10-nopatch", "get", "update"))
	require.NoError(t, err)
	res, err := jobexec.ApplyOutput(ctx, without, applyNamespace, before.Name, data, nil)
	require.NoError(t, err)
	require.NotNil(t, res, "an apply without patch succeeded")
	assert.Equal(t, int32(8), res.ExitCode)
	assert.True(t, strings.Contains(res.Log, "forbidden"), "refusal is not RBAC's: %s", res.Log)
}
