package cli_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/NVIDIA/aicr/adapters/cli"
)

// operatorAt creates a namespace holding an aicr-operator Deployment running image, labelled
// with the chart's version label when label is set, and returns the namespace.
func operatorAt(t *testing.T, image, label string) string {
	t.Helper()
	ctx := context.Background()
	admin := clientFor(testEnv.Config)
	ns := fmt.Sprintf("version-%d", seq.Add(1))
	require.NoError(t, admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	labels := map[string]string{"app.kubernetes.io/name": "aicr-operator"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: cli.OperatorDeployment, Namespace: ns, Labels: map[string]string{}},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{
					{Name: "sidecar", Image: "registry.example.com/sidecar:v9.9.9"},
					{Name: "operator", Image: image},
				}},
			},
		},
	}
	if label != "" {
		d.Labels["app.kubernetes.io/version"] = label
	}
	require.NoError(t, admin.Create(ctx, d))
	return ns
}

// version runs kubectl aicr version as the administrator with the plugin at pluginVersion.
func version(pluginVersion, ns string) result {
	return runWith(func(o *cli.Options) { o.Version = pluginVersion },
		"version", "--kubeconfig", kubeconfig, "--operator-namespace", ns)
}

// TestVersion_PrintsBothAndWarnsOnMinorSkew: the operator's version is the tag of its
// Deployment's operator image (digest or not), else the chart's version label; a plugin of
// another major or minor version is warned about, a patch difference or a dev build is not.
func TestVersion_PrintsBothAndWarnsOnMinorSkew(t *testing.T) {
	needEnv(t)
	t.Parallel()
	digest := "@" + digestOf("operator image")
	tests := []struct {
		name, image, label, plugin, operator string
		skew                                 bool
	}{
		{name: "same minor", image: "nvcr.io/nvidia/aicr-operator:v0.4.2" + digest, plugin: "v0.4.0", operator: "v0.4.2"},
		{name: "minor skew", image: "nvcr.io/nvidia/aicr-operator:v0.4.2" + digest, plugin: "v0.5.0", operator: "v0.4.2", skew: true},
		{name: "major skew", image: "localhost:5000/aicr-operator:1.4.0", plugin: "v0.4.0", operator: "1.4.0", skew: true},
		{name: "label without tag", image: "localhost:5000/aicr-operator" + digest, label: "0.3.1", plugin: "v0.4.0", operator: "0.3.1", skew: true},
		{name: "dev plugin", image: "nvcr.io/nvidia/aicr-operator:v0.4.2", plugin: "", operator: "v0.4.2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ns := operatorAt(t, tt.image, tt.label)

			r := version(tt.plugin, ns)

			require.Equal(t, 0, r.code, "stderr: %s", r.stderr)
			plugin := tt.plugin
			if plugin == "" {
				plugin = "dev"
			}
			assert.Equal(t, "Plugin version: "+plugin+"\nOperator version: "+tt.operator+"\n", r.stdout)
			if !tt.skew {
				assert.Empty(t, r.stderr)
				return
			}
			assert.Equal(t, "warning: the plugin ("+plugin+") and the operator ("+tt.operator+") differ in minor version; "+
				"use the plugin released with the operator\n", r.stderr)
		})
	}
}

// TestVersion_NoOperator: without an operator Deployment in the operator namespace, version
// prints the plugin's version and fails naming what it looked for.
func TestVersion_NoOperator(t *testing.T) {
	needEnv(t)
	t.Parallel()

	r := version("v0.4.0", "no-operator-here")

	assert.Equal(t, 1, r.code)
	assert.Equal(t, "Plugin version: v0.4.0\n", r.stdout)
	assert.Contains(t, r.stderr, "error: get deployment no-operator-here/aicr-operator: ")
	assert.Contains(t, r.stderr, "not found")
}

// TestVersion_NoCluster: without a reachable cluster the plugin's version is still printed.
func TestVersion_NoCluster(t *testing.T) {
	t.Parallel()

	r := runWith(func(o *cli.Options) { o.Version = "v0.4.0" }, "version", "--kubeconfig", "/nonexistent")

	assert.Equal(t, 1, r.code)
	assert.Equal(t, "Plugin version: v0.4.0\n", r.stdout)
	assert.Contains(t, r.stderr, "error: load kubeconfig: ")
}
