//go:build e2e

package cluster_test

import (
	"context"
	"encoding/pem"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/test/e2e/cluster"
)

const testChart = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: demo-app
spec:
  replicas: {{ .Values.replicas }}
  selector: {matchLabels: {app: demo-app}}
  template:
    metadata: {labels: {app: demo-app}}
    spec:
      containers: [{name: app, image: example.invalid/app:1}]
`

// TestArgoCDSyncsAnOCIHelmChart is the environment's smoke test: a chart pushed to the test
// registry with `helm push` and named by an Application as the operator names charts (a native
// OCI Helm source pinned by manifest digest, path "."), with values overriding the chart's
// default, is synced by Argo CD's own controllers, and its Deployment becomes available with
// the overridden replica count on a kwok node.
func TestArgoCDSyncsAnOCIHelmChart(t *testing.T) {
	ctx := t.Context()
	work := t.TempDir()
	reg := httptest.NewTLSServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(reg.Close)
	caFile := filepath.Join(work, "ca.pem")
	require.NoError(t, os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: reg.Certificate().Raw}), 0o600))
	host := strings.TrimPrefix(reg.URL, "https://")

	bins, err := cluster.BinDir()
	require.NoError(t, err)
	chartDir := filepath.Join(work, "demo-app")
	require.NoError(t, os.MkdirAll(filepath.Join(chartDir, "templates"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(chartDir, "Chart.yaml"), []byte("apiVersion: v2\nname: demo-app\nversion: 1.0.0\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(chartDir, "values.yaml"), []byte("replicas: 2\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(chartDir, "templates", "deploy.yaml"), []byte(testChart), 0o600))
	helm := func(args ...string) string {
		cmd := exec.CommandContext(ctx, filepath.Join(bins, "helm"), args...)
		cmd.Dir, cmd.Env = work, append(os.Environ(), "HOME="+work, "SSL_CERT_FILE="+caFile)
		out, runErr := cmd.CombinedOutput()
		require.NoError(t, runErr, "helm %v: %s", args, out)
		return string(out)
	}
	helm("package", chartDir)
	digest := regexp.MustCompile(`sha256:[0-9a-f]{64}`).FindString(helm("push", "demo-app-1.0.0.tgz", "oci://"+host+"/charts"))
	require.NotEmpty(t, digest, "helm push prints the manifest digest")

	logs := t.TempDir()
	cl, err := cluster.Start(ctx, cluster.Options{
		WorkDir: logs, CAFile: caFile,
		Nodes: []*corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "node-0"}}},
	})
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, cl.Stop())
		if t.Failed() {
			logTails(t, logs)
		}
	})

	require.NoError(t, cl.Admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "demo"}}))
	app := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"name": "demo-app", "namespace": cl.ArgoCDNamespace},
		"spec": map[string]any{
			"project": "default",
			"source": map[string]any{"repoURL": "oci://" + host + "/charts/demo-app", "path": ".", "targetRevision": digest,
				"helm": map[string]any{"valuesObject": map[string]any{"replicas": 3}}},
			"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": "demo"},
			"syncPolicy":  map[string]any{"automated": map[string]any{"selfHeal": true, "prune": true}},
		},
	}}
	require.NoError(t, cl.Admin.Create(ctx, app))
	start := time.Now()
	err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(app.GroupVersionKind())
		if getErr := cl.Admin.Get(ctx, client.ObjectKeyFromObject(app), got); getErr != nil {
			return false, getErr
		}
		sync, _, _ := unstructured.NestedString(got.Object, "status", "sync", "status")
		health, _, _ := unstructured.NestedString(got.Object, "status", "health", "status")
		return sync == "Synced" && health == "Healthy", cl.Exited()
	})
	require.NoError(t, err)
	t.Logf("synced and healthy after %s", time.Since(start))
	dep := &appsv1.Deployment{}
	require.NoError(t, cl.Admin.Get(ctx, client.ObjectKey{Namespace: "demo", Name: "demo-app"}, dep))
	require.Equal(t, int32(3), *dep.Spec.Replicas)
	require.Equal(t, int32(3), dep.Status.AvailableReplicas)
}

// logTails logs the end of every process log of a failed run.
func logTails(t *testing.T, dir string) {
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	for _, l := range logs {
		raw, err := os.ReadFile(l)
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
		t.Logf("--- last lines of %s:\n%s", filepath.Base(l), strings.Join(lines[max(0, len(lines)-30):], "\n"))
	}
}
