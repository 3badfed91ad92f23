// Package chartrender renders charts/aicr-operator with the Helm v3 SDK, as `helm template`
// does, and applies what it renders to a cluster with server-side apply. Tests, the CLI suite
// and `make demo` share it.
package chartrender

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/releaseutil"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// ReleaseName is the Helm release name renders use.
const ReleaseName = "aicr-operator"

// ChartDir returns the chart's directory, found relative to this file.
func ChartDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "charts", "aicr-operator")
}

// Render renders the chart into namespace with values and returns its objects in Helm's
// install order (CRDs and namespaces first).
func Render(namespace string, values map[string]any) ([]*unstructured.Unstructured, error) {
	chrt, err := loader.Load(ChartDir())
	if err != nil {
		return nil, fmt.Errorf("load chart: %w", err)
	}
	return RenderChart(chrt, ReleaseName, namespace, values)
}

// RenderChart renders chrt as release name into namespace with values, as `helm template` does for
// Kubernetes 1.34.4, and returns its objects in Helm's install order (CRDs and namespaces first).
func RenderChart(chrt *chart.Chart, name, namespace string, values map[string]any) ([]*unstructured.Unstructured, error) {
	rel, err := clientOnly(chrt, name, namespace, values)
	if err != nil {
		return nil, err
	}
	manifests := releaseutil.SplitManifests(rel.Manifest)
	keys := make([]string, 0, len(manifests))
	for k := range manifests {
		keys = append(keys, k)
	}
	sort.Sort(releaseutil.BySplitManifestsOrder(keys))
	return DecodeManifests(manifests, keys)
}

// DecodeManifests decodes rendered manifests (a Helm release split by file) in the order of
// keys, skipping empty ones.
func DecodeManifests(manifests map[string]string, keys []string) ([]*unstructured.Unstructured, error) {
	objs := make([]*unstructured.Unstructured, 0, len(keys))
	for _, k := range keys {
		if strings.TrimSpace(manifests[k]) == "" {
			continue
		}
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(manifests[k]), &obj.Object); err != nil {
			return nil, fmt.Errorf("decode rendered manifest %s: %w", k, err)
		}
		if len(obj.Object) > 0 {
			objs = append(objs, obj)
		}
	}
	return objs, nil
}

// Hooks renders the chart into namespace with values and returns its hooks (the helm test
// Pod and what it needs), in the order Helm lists them.
func Hooks(namespace string, values map[string]any) ([]*unstructured.Unstructured, error) {
	chrt, err := loader.Load(ChartDir())
	if err != nil {
		return nil, fmt.Errorf("load chart: %w", err)
	}
	return HooksOf(chrt, namespace, values)
}

// HooksOf is Hooks of a loaded chart, for example a packaged one.
func HooksOf(chrt *chart.Chart, namespace string, values map[string]any) ([]*unstructured.Unstructured, error) {
	rel, err := clientOnly(chrt, ReleaseName, namespace, values)
	if err != nil {
		return nil, err
	}
	out := make([]*unstructured.Unstructured, 0, len(rel.Hooks))
	for _, h := range rel.Hooks {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(h.Manifest), &obj.Object); err != nil {
			return nil, fmt.Errorf("decode rendered hook %s: %w", h.Path, err)
		}
		out = append(out, obj)
	}
	return out, nil
}

// clientOnly renders chrt as `helm template` does for Kubernetes 1.34.4: no cluster access,
// CRDs included.
func clientOnly(chrt *chart.Chart, name, namespace string, values map[string]any) (*release.Release, error) {
	install := action.NewInstall(&action.Configuration{Log: func(string, ...any) {}})
	install.DryRun, install.ClientOnly, install.Replace, install.IncludeCRDs = true, true, true, true
	install.ReleaseName = name
	install.Namespace = namespace
	install.KubeVersion = &chartutil.KubeVersion{Version: "v1.34.4", Major: "1", Minor: "34"}
	rel, err := install.Run(chrt, values)
	if err != nil {
		return nil, fmt.Errorf("render chart: %w", err)
	}
	return rel, nil
}

// Apply server-side applies objs in order with field manager "helm", skipping the kinds in
// skip (for example Deployment when the operator runs outside the cluster). A namespaced
// object without a namespace lands in namespace.
func Apply(ctx context.Context, c client.Client, namespace string, objs []*unstructured.Unstructured, skip ...string) error {
	for _, obj := range objs {
		if slices.Contains(skip, obj.GetKind()) {
			continue
		}
		isNamespaced, err := c.IsObjectNamespaced(obj)
		if err != nil {
			return fmt.Errorf("%s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
		if isNamespaced && obj.GetNamespace() == "" {
			obj.SetNamespace(namespace)
		}
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("helm"), client.ForceOwnership); err != nil {
			return fmt.Errorf("apply %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	return nil
}
