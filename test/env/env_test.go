package env_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/test/env"
)

// cp is the control plane the tests of this package share, auditLog the file it audits writes to.
var (
	cp       *env.Env
	auditLog string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "env-audit-")
	if err != nil {
		panic(err)
	}
	auditLog = filepath.Join(dir, "audit.log")
	code := env.Main(m, env.Options{AuditLog: auditLog, AuditBodies: []env.AuditResource{{Resource: "configmaps"}}}, func(started *env.Env) error {
		cp = started
		return nil
	})
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// TestAuditLogRecordsWhoWroteWhat creates a ConfigMap as a kubeconfig user and finds the write,
// with its user and (AuditBodies names ConfigMaps) the object it created, in the audit log;
// reads are not recorded.
func TestAuditLogRecordsWhoWroteWhat(t *testing.T) {
	raw, err := cp.KubeConfig("audited-writer", "system:masters")
	require.NoError(t, err)
	cfg, err := clientcmd.RESTConfigFromKubeConfig(raw)
	require.NoError(t, err)
	c, err := client.New(cfg, client.Options{})
	require.NoError(t, err)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "audited", Namespace: "default"}}
	require.NoError(t, c.Create(context.Background(), cm))
	require.NoError(t, c.Get(context.Background(), client.ObjectKeyFromObject(cm), cm))

	// The API server writes an event once the response is sent: wait for it.
	var mine []env.AuditEvent
	require.Eventually(t, func() bool {
		events, err := env.ReadAudit(auditLog)
		require.NoError(t, err)
		mine = mine[:0]
		for _, e := range events {
			if e.User.Username == "audited-writer" {
				mine = append(mine, e)
			}
		}
		return len(mine) > 0
	}, 10*time.Second, 50*time.Millisecond)
	require.Len(t, mine, 1, "one write, the read not recorded")
	assert.Equal(t, "create", mine[0].Verb)
	assert.Equal(t, "configmaps", mine[0].ObjectRef.Resource)
	assert.Equal(t, "audited", mine[0].ObjectRef.Name)
	assert.Equal(t, 201, mine[0].ResponseStatus.Code)
	var created corev1.ConfigMap
	require.NoError(t, json.Unmarshal(mine[0].ResponseObject, &created), "the created object is recorded")
	assert.Equal(t, cm.ResourceVersion, created.ResourceVersion)
}

// TestKubeConfigAuthenticatesAsTheUser writes an administrator's kubeconfig and lists
// namespaces with it.
func TestKubeConfigAuthenticatesAsTheUser(t *testing.T) {
	raw, err := cp.KubeConfig("demo-admin", "system:masters")
	require.NoError(t, err)
	cfg, err := clientcmd.RESTConfigFromKubeConfig(raw)
	require.NoError(t, err)
	c, err := client.New(cfg, client.Options{})
	require.NoError(t, err)
	var namespaces corev1.NamespaceList
	require.NoError(t, c.List(context.Background(), &namespaces))
	require.NotEmpty(t, namespaces.Items)
}

// TestControlPlaneRunsTheRequestedRelease checks that the started kube-apiserver reports the
// release under test (AICR_ENVTEST_K8S, or the oldest supported one): `make test` runs it
// against 1.34 and `make test-k8s-1.37` against 1.37.
func TestControlPlaneRunsTheRequestedRelease(t *testing.T) {
	requested, err := env.RequestedK8sVersion()
	require.NoError(t, err)
	t.Logf("kube-apiserver %s, requested %s", cp.ServerVersion.GitVersion, requested)
	require.Equal(t, "v"+requested, cp.ServerVersion.GitVersion)
}
