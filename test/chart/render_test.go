package chart_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/releaseutil"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// releaseNamespace is the namespace every test release is rendered into: the operator namespace.
const releaseNamespace = "aicr-system"

// operatorUser is the operator's username in releaseNamespace.
const operatorUser = "system:serviceaccount:" + releaseNamespace + ":aicr-operator"

// chartDir returns the chart's directory, found relative to this file.
func chartDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "charts", "aicr-operator")
}

// requiredValues are the smallest values the chart renders with.
func requiredValues() map[string]any {
	return map[string]any{
		"registry": map[string]any{"repository": "oci://registry.example.com/aicr"},
		"namespaces": map[string]any{
			"components": []any{map[string]any{"name": "gpu-operator", "podSecurity": "privileged"}},
		},
	}
}

// render renders the chart as `helm template` does, with the Helm v3 SDK, and returns its objects.
func render(values map[string]any) ([]*unstructured.Unstructured, error) {
	chrt, err := loader.Load(chartDir())
	if err != nil {
		return nil, fmt.Errorf("load chart: %w", err)
	}
	install := action.NewInstall(&action.Configuration{Log: func(string, ...any) {}})
	install.DryRun = true
	install.ClientOnly = true
	install.Replace = true
	install.IncludeCRDs = true
	install.ReleaseName = "aicr-operator"
	install.Namespace = releaseNamespace
	install.KubeVersion = &chartutil.KubeVersion{Version: "v1.34.4", Major: "1", Minor: "34"}
	rel, err := install.Run(chrt, values)
	if err != nil {
		return nil, err
	}
	manifests := releaseutil.SplitManifests(rel.Manifest)
	keys := make([]string, 0, len(manifests))
	for k := range manifests {
		keys = append(keys, k)
	}
	sort.Sort(releaseutil.BySplitManifestsOrder(keys))
	objs := make([]*unstructured.Unstructured, 0, len(keys))
	for _, k := range keys {
		doc := manifests[k]
		if strings.TrimSpace(doc) == "" {
			continue
		}
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
			return nil, fmt.Errorf("decode rendered manifest %s: %w", k, err)
		}
		if len(obj.Object) == 0 {
			continue
		}
		objs = append(objs, obj)
	}
	return objs, nil
}

// find returns the rendered object of kind and name, or nil.
func find(objs []*unstructured.Unstructured, kind, namespace, name string) *unstructured.Unstructured {
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name && o.GetNamespace() == namespace {
			return o
		}
	}
	return nil
}

// withValues returns requiredValues with path (dot-separated) set to value.
func withValues(sets map[string]any) map[string]any {
	v := requiredValues()
	for path, value := range sets {
		setPath(v, strings.Split(path, "."), value)
	}
	return v
}

func setPath(m map[string]any, path []string, value any) {
	if len(path) == 1 {
		if value == nil {
			delete(m, path[0])
			return
		}
		m[path[0]] = value
		return
	}
	next, ok := m[path[0]].(map[string]any)
	if !ok {
		next = map[string]any{}
		m[path[0]] = next
	}
	setPath(next, path[1:], value)
}
