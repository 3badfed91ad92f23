package v1alpha1_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestEveryListMapAndStringIsBounded walks the CRDs as the API server stored them and fails
// on any list without maxItems, map without maxProperties or string without maxLength
// (PLAT-8). An enum or a format does not count as a bound: enum strings (steps[].operation,
// status.phase, toleration operator and effect, ...) and date-time strings (deadline,
// expiresAt, ...) carry maxLength like every other string. The exceptions are what the
// project cannot bound, each listed in unboundable with its reason.
func TestEveryListMapAndStringIsBounded(t *testing.T) {
	t.Parallel()
	scheme := runtime.NewScheme()
	require.NoError(t, apiextensionsv1.AddToScheme(scheme))
	c, err := client.New(restConfig, client.Options{Scheme: scheme})
	require.NoError(t, err)
	reached := map[string]bool{}
	for _, name := range []string{"clusterruntimes.operator.aicr.run", "runtimerollouts.operator.aicr.run"} {
		var crd apiextensionsv1.CustomResourceDefinition
		require.NoError(t, c.Get(context.Background(), client.ObjectKey{Name: name}, &crd))
		for _, v := range crd.Spec.Versions {
			var unbounded, visited []string
			walkSchema("", v.Schema.OpenAPIV3Schema, &unbounded, &visited)
			assert.Emptyf(t, unbounded, "PLAT-8: %s has unbounded fields", name)
			assert.Greaterf(t, len(visited), 10, "the walk must reach the schema's strings in %s", name)
			for _, p := range visited {
				reached[p] = true
			}
		}
	}
	for path := range unboundable {
		assert.Truef(t, reached[path], "exception %s names no field of either CRD: remove it", path)
	}
}

// unboundable lists the fields PLAT-8 cannot bound in the schema, with the reason.
var unboundable = map[string]string{
	// Any JSON value (CR-2); its encoded size is enforced at reconcile time (CR-4).
	".spec.overrides[].value": "schemaless",
	// status.conditions are upstream metav1.Condition, whose fields take no markers from this
	// project: status is the enum True, False or Unknown and lastTransitionTime is a
	// date-time, neither with maxLength. No validation rule of either CRD reads them (the
	// conditions rule reads only message), so they cost no CEL budget.
	".status.conditions[].status":             "upstream metav1.Condition enum",
	".status.conditions[].lastTransitionTime": "upstream metav1.Condition date-time",
}

func walkSchema(path string, s *apiextensionsv1.JSONSchemaProps, unbounded, visited *[]string) {
	if s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields && s.Type == "" {
		if _, ok := unboundable[path]; !ok {
			*unbounded = append(*unbounded, path+" (schemaless)")
		}
		*visited = append(*visited, path)
		return
	}
	switch s.Type {
	case "string":
		*visited = append(*visited, path)
		if _, ok := unboundable[path]; s.MaxLength == nil && !ok {
			*unbounded = append(*unbounded, path)
		}
	case "array":
		if s.MaxItems == nil {
			*unbounded = append(*unbounded, path)
		}
		walkSchema(path+"[]", s.Items.Schema, unbounded, visited)
	case "object":
		if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			if s.MaxProperties == nil {
				*unbounded = append(*unbounded, path)
			}
			walkSchema(path+"{}", s.AdditionalProperties.Schema, unbounded, visited)
		}
		for name, prop := range s.Properties {
			if path == "" && (name == "metadata" || name == "apiVersion" || name == "kind") {
				continue // ObjectMeta and type fields are bounded by the API server itself
			}
			walkSchema(path+"."+name, &prop, unbounded, visited)
		}
	}
}
