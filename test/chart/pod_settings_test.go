package chart_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// renderedDeployment renders the chart with sets and returns the operator's Deployment.
func renderedDeployment(t *testing.T, sets map[string]any) *appsv1.Deployment {
	t.Helper()
	objs, err := render(withValues(sets))
	require.NoError(t, err)
	u := find(objs, "Deployment", releaseNamespace, "aicr-operator")
	require.NotNil(t, u)
	var d appsv1.Deployment
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &d))
	return &d
}

// TestOperatorPodSettings: affinity, Pod annotations and labels, a proxy and a CA bundle reach
// the operator's Pod as a cluster closed to the internet needs them, a parent chart's global
// values are accepted, and none of them is rendered when unset.
func TestOperatorPodSettings(t *testing.T) {
	t.Parallel()
	affinity := map[string]any{"podAntiAffinity": map[string]any{"preferredDuringSchedulingIgnoredDuringExecution": []any{
		map[string]any{"weight": 100, "podAffinityTerm": map[string]any{"topologyKey": "topology.kubernetes.io/zone",
			"labelSelector": map[string]any{"matchLabels": map[string]any{"app.kubernetes.io/name": "aicr-operator"}}}},
	}}}
	d := renderedDeployment(t, map[string]any{
		"operator.affinity":         affinity,
		"operator.podAnnotations":   map[string]any{"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"},
		"operator.podLabels":        map[string]any{"team": "gpu-platform"},
		"operator.proxy.httpsProxy": "http://proxy.corp:3128",
		"operator.proxy.noProxy":    "10.0.0.0/8,.svc,.cluster.local",
		"operator.caBundle":         map[string]any{"configMap": "corp-ca", "key": "bundle.pem"},
		"global":                    map[string]any{"imageRegistry": "registry.corp"},
	})
	pod := d.Spec.Template
	require.NotNil(t, pod.Spec.Affinity)
	require.NotNil(t, pod.Spec.Affinity.PodAntiAffinity)
	assert.Equal(t, "topology.kubernetes.io/zone",
		pod.Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm.TopologyKey)
	assert.Equal(t, "false", pod.Annotations["cluster-autoscaler.kubernetes.io/safe-to-evict"])
	assert.Equal(t, "gpu-platform", pod.Labels["team"])
	assert.Equal(t, "aicr-operator", pod.Labels["app.kubernetes.io/name"], "the chart's own labels stay")
	c := pod.Spec.Containers[0]
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	assert.Equal(t, "http://proxy.corp:3128", env["HTTPS_PROXY"])
	assert.Equal(t, "10.0.0.0/8,.svc,.cluster.local", env["NO_PROXY"])
	assert.NotContains(t, env, "HTTP_PROXY", "an empty proxy value is not rendered")
	assert.Equal(t, "/etc/aicr-operator/ca-bundle", env["SSL_CERT_DIR"])
	require.Len(t, c.VolumeMounts, 1)
	assert.Equal(t, corev1.VolumeMount{Name: "ca-bundle", MountPath: "/etc/aicr-operator/ca-bundle", ReadOnly: true}, c.VolumeMounts[0])
	require.Len(t, pod.Spec.Volumes, 1)
	require.NotNil(t, pod.Spec.Volumes[0].ConfigMap)
	assert.Equal(t, "corp-ca", pod.Spec.Volumes[0].ConfigMap.Name)
	assert.Equal(t, []corev1.KeyToPath{{Key: "bundle.pem", Path: "ca.crt"}}, pod.Spec.Volumes[0].ConfigMap.Items)

	plain := renderedDeployment(t, nil).Spec.Template
	assert.Nil(t, plain.Spec.Affinity)
	assert.Empty(t, plain.Annotations)
	assert.Empty(t, plain.Spec.Volumes)
	for _, e := range plain.Spec.Containers[0].Env {
		assert.Equal(t, "POD_NAMESPACE", e.Name, "no proxy or CA variable without its value")
	}
}

// TestOperatorPodSettingsRefused: a Pod label that would replace one of the chart's own, and
// settings of the wrong shape, fail the render with a message that names them.
func TestOperatorPodSettingsRefused(t *testing.T) {
	t.Parallel()
	for name, tt := range map[string]struct {
		sets map[string]any
		want string
	}{
		"the chart's own label": {map[string]any{"operator.podLabels": map[string]any{"app.kubernetes.io/name": "x"}},
			"operator.podLabels: app.kubernetes.io/name is one of the chart's own labels"},
		"a proxy setting the chart does not know": {map[string]any{"operator.proxy.ftpProxy": "x"}, "ftpProxy"},
		"an annotation that is not a string":      {map[string]any{"operator.podAnnotations": map[string]any{"a": 1}}, "podAnnotations"},
		"an affinity key Kubernetes does not have": {map[string]any{"operator.affinity": map[string]any{"zoneAffinity": map[string]any{}}},
			"zoneAffinity"},
		"a CA bundle without its key": {map[string]any{"operator.caBundle.key": ""}, "caBundle"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := render(withValues(tt.sets))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
