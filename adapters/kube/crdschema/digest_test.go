package crdschema_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/NVIDIA/aicr/adapters/kube/crdschema"
)

func crd(rule string, versions ...string) *apiextensionsv1.CustomResourceDefinition {
	c := &apiextensionsv1.CustomResourceDefinition{}
	c.Name = "examples.operator.aicr.run"
	for _, v := range versions {
		c.Spec.Versions = append(c.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{
			Name: v, Served: true, Storage: v == versions[0],
			Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
				Type: "object", XValidations: apiextensionsv1.ValidationRules{{Rule: rule}},
			}},
			Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
		})
	}
	return c
}

func digest(t *testing.T, c *apiextensionsv1.CustomResourceDefinition) string {
	t.Helper()
	d, err := crdschema.Digest(c)
	require.NoError(t, err)
	return d
}

func TestDigestCoversRulesAndSubresources(t *testing.T) {
	t.Parallel()
	base := digest(t, crd("self.a == oldSelf.a", "v1alpha1"))
	assert.Regexp(t, `^[0-9a-f]{64}$`, base)
	assert.NotEqual(t, base, digest(t, crd("true", "v1alpha1")), "a loosened CEL rule")

	noStatus := crd("self.a == oldSelf.a", "v1alpha1")
	noStatus.Spec.Versions[0].Subresources = nil
	assert.NotEqual(t, base, digest(t, noStatus), "status no longer a subresource")

	extra := crd("self.a == oldSelf.a", "v1alpha1", "v1beta1")
	assert.NotEqual(t, base, digest(t, extra), "another version")
}

func TestDigestIgnoresWhatDoesNotEnforce(t *testing.T) {
	t.Parallel()
	a := crd("self.a == oldSelf.a", "v1alpha1", "v1beta1")
	b := crd("self.a == oldSelf.a", "v1alpha1", "v1beta1")
	b.Spec.Versions[0], b.Spec.Versions[1] = b.Spec.Versions[1], b.Spec.Versions[0]
	b.Annotations = map[string]string{"example.com/note": "x"}
	b.ResourceVersion = "42"
	assert.Equal(t, digest(t, a), digest(t, b), "version order, annotations and resourceVersion")
}
