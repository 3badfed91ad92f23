package v1alpha1_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestEveryListMapAndStringIsBounded walks the CRDs as the API server stored them and fails
// on any list without maxItems, map without maxProperties or string without maxLength, enum
// or format (PLAT-8). The schemaless override value is the one exception: its encoded size
// is enforced at reconcile time (CR-4).
func TestEveryListMapAndStringIsBounded(t *testing.T) {
	t.Parallel()
	scheme := runtime.NewScheme()
	require.NoError(t, apiextensionsv1.AddToScheme(scheme))
	c, err := client.New(restConfig, client.Options{Scheme: scheme})
	require.NoError(t, err)
	for _, name := range []string{"clusterruntimes.operator.aicr.run", "runtimerollouts.operator.aicr.run"} {
		var crd apiextensionsv1.CustomResourceDefinition
		require.NoError(t, c.Get(context.Background(), client.ObjectKey{Name: name}, &crd))
		for _, v := range crd.Spec.Versions {
			var unbounded, visited []string
			walkSchema("", v.Schema.OpenAPIV3Schema, &unbounded, &visited)
			assert.Emptyf(t, unbounded, "PLAT-8: %s has unbounded fields", name)
			assert.Greaterf(t, len(visited), 10, "the walk must reach the schema's strings in %s", name)
		}
	}
}

func walkSchema(path string, s *apiextensionsv1.JSONSchemaProps, unbounded, visited *[]string) {
	if s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields && s.Type == "" {
		if !strings.HasSuffix(path, ".overrides[].value") {
			*unbounded = append(*unbounded, path+" (schemaless)")
		}
		return
	}
	switch s.Type {
	case "string":
		*visited = append(*visited, path)
		if s.MaxLength == nil && len(s.Enum) == 0 && s.Format == "" {
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
