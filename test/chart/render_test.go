package chart_test

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/NVIDIA/aicr/test/chartrender"
)

// releaseNamespace is the namespace every test release is rendered into: the operator namespace.
const releaseNamespace = "aicr-system"

// operatorUser is the operator's username in releaseNamespace.
const operatorUser = "system:serviceaccount:" + releaseNamespace + ":aicr-operator"

// chartDir returns the chart's directory, found relative to this file.
func chartDir() string {
	return chartrender.ChartDir()
}

// requiredValues are the smallest values the chart renders with.
func requiredValues() map[string]any {
	return chartrender.RequiredValues()
}

// render renders the chart as `helm template` does (shared with the demo: test/chartrender).
func render(values map[string]any) ([]*unstructured.Unstructured, error) {
	return chartrender.Render(releaseNamespace, values)
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
	return chartrender.WithValues(sets)
}
