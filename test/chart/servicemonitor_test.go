package chart_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// decodeServiceMonitor decodes the rendered ServiceMonitor into the Prometheus Operator's own
// type, refusing any field that type does not have.
func decodeServiceMonitor(t *testing.T, obj *unstructured.Unstructured) monitoringv1.ServiceMonitor {
	t.Helper()
	raw, err := json.Marshal(obj.Object)
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var sm monitoringv1.ServiceMonitor
	require.NoError(t, dec.Decode(&sm), "the ServiceMonitor is one the Prometheus Operator's API knows field by field")
	return sm
}

// TestRenderServiceMonitorAuthorization: with secure metrics the ServiceMonitor authenticates
// through authorization (a token from a Secret), never the deprecated bearerTokenFile; by
// default from the chart's scraper identity, bound to aicr-operator-metrics-reader alone, or
// from the Secret the values name, and then the chart creates no identity; with the operator's
// certificate in a Secret it verifies the endpoint with that Secret's CA and the Service's name.
func TestRenderServiceMonitorAuthorization(t *testing.T) {
	t.Parallel()
	const certSecret = "aicr-operator-metrics-tls"
	cases := []struct {
		name        string
		values      map[string]any
		credentials string
		key         string
		scraper     bool
		verified    bool
	}{
		{name: "the chart's scraper identity", values: map[string]any{},
			credentials: "aicr-operator-metrics-scraper-token", key: "token", scraper: true},
		{name: "a token Secret of the administrator's", values: map[string]any{
			"monitoring.serviceMonitor.authorization.secretName": "prometheus-aicr-token",
			"monitoring.serviceMonitor.authorization.key":        "bearer",
		}, credentials: "prometheus-aicr-token", key: "bearer"},
		{name: "a verified certificate", values: map[string]any{
			"operator.metricsCertificateSecret": certSecret,
			"operator.caBundle":                 map[string]any{"configMap": "corp-ca", "key": "bundle.pem"},
		}, credentials: "aicr-operator-metrics-scraper-token", key: "token", scraper: true, verified: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			v := everythingValues()
			for path, value := range c.values {
				require.NoError(t, unstructured.SetNestedField(v, value, strings.Split(path, ".")...))
			}
			objs, err := render(v)
			require.NoError(t, err)
			obj := find(objs, "ServiceMonitor", releaseNamespace, "aicr-operator")
			require.NotNil(t, obj)
			sm := decodeServiceMonitor(t, obj)
			require.Len(t, sm.Spec.Endpoints, 1)
			ep := sm.Spec.Endpoints[0]
			require.NotNil(t, ep.Authorization)
			assert.Equal(t, "Bearer", ep.Authorization.Type)
			require.NotNil(t, ep.Authorization.Credentials)
			assert.Equal(t, c.credentials, ep.Authorization.Credentials.Name)
			assert.Equal(t, c.key, ep.Authorization.Credentials.Key)
			require.NotNil(t, ep.TLSConfig)

			u := find(objs, "Deployment", releaseNamespace, "aicr-operator")
			require.NotNil(t, u)
			var deploy appsv1.Deployment
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &deploy))
			pod := deploy.Spec.Template.Spec
			const certFlag, certDir = "--metrics-cert-dir=/var/run/aicr-operator/metrics-tls", "/var/run/aicr-operator/metrics-tls"
			if c.verified {
				assert.False(t, ptrValue(ep.TLSConfig.InsecureSkipVerify), "the certificate is verified")
				require.NotNil(t, ep.TLSConfig.CA.Secret)
				assert.Equal(t, certSecret, ep.TLSConfig.CA.Secret.Name)
				assert.Equal(t, "ca.crt", ep.TLSConfig.CA.Secret.Key)
				assert.Equal(t, "aicr-operator-metrics."+releaseNamespace+".svc", ptrValue(ep.TLSConfig.ServerName))
				assert.Contains(t, pod.Containers[0].Args, certFlag)
				assert.Contains(t, pod.Containers[0].VolumeMounts,
					corev1.VolumeMount{Name: "metrics-tls", MountPath: certDir, ReadOnly: true})
				assert.Contains(t, pod.Volumes, corev1.Volume{Name: "metrics-tls", VolumeSource: corev1.VolumeSource{
					Secret: &corev1.SecretVolumeSource{SecretName: certSecret, Items: []corev1.KeyToPath{
						{Key: "tls.crt", Path: "tls.crt"}, {Key: "tls.key", Path: "tls.key"},
					}},
				}}, "the key pair only: the operator needs no CA")
				assert.Len(t, pod.Volumes, 2, "next to the CA bundle")
			} else {
				assert.True(t, ptrValue(ep.TLSConfig.InsecureSkipVerify), "a self-signed certificate is not verified")
				assert.NotContains(t, pod.Containers[0].Args, certFlag)
				assert.Empty(t, pod.Volumes)
			}

			sa := find(objs, "ServiceAccount", releaseNamespace, "aicr-operator-metrics-scraper")
			token := find(objs, "Secret", releaseNamespace, "aicr-operator-metrics-scraper-token")
			binding := find(objs, "ClusterRoleBinding", "", "aicr-operator-metrics-scraper")
			if !c.scraper {
				assert.Nil(t, sa, "no scraper identity when the administrator names a token Secret")
				assert.Nil(t, token)
				assert.Nil(t, binding)
				return
			}
			require.NotNil(t, sa)
			require.NotNil(t, token)
			require.NotNil(t, binding)
			tokenType, _, _ := unstructured.NestedString(token.Object, "type")
			assert.Equal(t, "kubernetes.io/service-account-token", tokenType)
			assert.Equal(t, "aicr-operator-metrics-scraper", token.GetAnnotations()["kubernetes.io/service-account.name"])
			role, _, _ := unstructured.NestedString(binding.Object, "roleRef", "name")
			assert.Equal(t, "aicr-operator-metrics-reader", role, "the scraper reads /metrics and nothing else")
			subjects, _, _ := unstructured.NestedSlice(binding.Object, "subjects")
			assert.Equal(t, []any{map[string]any{
				"kind": "ServiceAccount", "name": "aicr-operator-metrics-scraper", "namespace": releaseNamespace,
			}}, subjects)
		})
	}
}

// TestRenderMetricsCertificateNeedsSecureMetrics: a serving certificate with plain HTTP metrics
// is refused with the chart's message, as the operator refuses the flags.
func TestRenderMetricsCertificateNeedsSecureMetrics(t *testing.T) {
	t.Parallel()
	v := everythingValues()
	require.NoError(t, unstructured.SetNestedField(v, false, "operator", "metricsSecure"))
	require.NoError(t, unstructured.SetNestedField(v, "aicr-operator-metrics-tls", "operator", "metricsCertificateSecret"))
	_, err := render(v)
	require.ErrorContains(t, err, "operator.metricsCertificateSecret needs operator.metricsSecure")
}

func ptrValue[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
