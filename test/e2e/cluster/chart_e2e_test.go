//go:build e2e

package cluster_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/test/chartrender"
	"github.com/NVIDIA/aicr/test/e2e/cluster"
	"github.com/NVIDIA/aicr/test/env"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// TestHelm4InstallsAndUpgradesTheOperatorChart installs the operator's chart with the Helm 4
// binary of the environment (the one Argo CD's repo server runs), as a user does with the
// install guide, then upgrades the release with one value changed: the release is deployed at
// revision 2 and the operator Deployment carries the new value.
func TestHelm4InstallsAndUpgradesTheOperatorChart(t *testing.T) {
	bins, err := cluster.BinDir()
	require.NoError(t, err)
	crds, err := cluster.ArgoCDCRDs()
	require.NoError(t, err)
	cp, err := env.Start(env.Options{CRDDirectoryPaths: []string{crds}})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, cp.Stop()) })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)

	// What the install guide's cluster has before: Argo CD's namespace and settings.
	admin, err := client.New(cp.Config, client.Options{})
	require.NoError(t, err)
	require.NoError(t, admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "argocd"}}))
	require.NoError(t, admin.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "argocd-cm", Namespace: "argocd"}}))

	work := t.TempDir()
	kubeconfig := filepath.Join(work, "admin.kubeconfig")
	require.NoError(t, cp.WriteKubeConfig(kubeconfig, "helm-admin", "system:masters"))
	chartDir := filepath.Join(jobexec.Root(), "charts", "aicr-operator")
	helm := func(args ...string) string {
		cmd := exec.CommandContext(ctx, filepath.Join(bins, "helm"), args...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "HELM_CACHE_HOME="+work,
			"HELM_CONFIG_HOME="+work, "HELM_DATA_HOME="+work)
		out, runErr := cmd.CombinedOutput()
		require.NoError(t, runErr, "helm %v: %s", args, out)
		return string(out)
	}
	valuesFile := func(logLevel string) string {
		values := chartrender.WithValues(map[string]any{"operator.logLevel": logLevel})
		raw, err := yaml.Marshal(values)
		require.NoError(t, err)
		path := filepath.Join(work, "values-"+logLevel+".yaml")
		require.NoError(t, os.WriteFile(path, raw, 0o600))
		return path
	}

	assert.Contains(t, helm("version", "--short"), "v"+cluster.HelmVersion)
	helm("install", "aicr-operator", chartDir, "--namespace", "aicr-system", "--create-namespace",
		"--values", valuesFile("info"))
	assert.Contains(t, operatorArgs(ctx, t, admin), "--log-level=info")
	helm("upgrade", "aicr-operator", chartDir, "--namespace", "aicr-system", "--values", valuesFile("debug"))
	assert.Contains(t, operatorArgs(ctx, t, admin), "--log-level=debug")

	var status struct {
		Version int `json:"version"`
		Info    struct {
			Status string `json:"status"`
		} `json:"info"`
	}
	require.NoError(t, json.Unmarshal([]byte(helm("status", "aicr-operator", "--namespace", "aicr-system", "--output", "json")), &status))
	assert.Equal(t, 2, status.Version)
	assert.Equal(t, "deployed", status.Info.Status)
}

// operatorArgs returns the arguments of the operator Deployment's container.
func operatorArgs(ctx context.Context, t *testing.T, c client.Client) []string {
	t.Helper()
	var deployments appsv1.DeploymentList
	require.NoError(t, c.List(ctx, &deployments, client.InNamespace("aicr-system")))
	require.Len(t, deployments.Items, 1)
	return deployments.Items[0].Spec.Template.Spec.Containers[0].Args
}
