package cluster

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
)

// StandInCRDs returns a schemaless CRD for every custom kind the manifests under the bundle
// directories use (the templates of bundle-local releases): the upstream charts that define
// them are stand-ins here, so the cluster gets the kinds the real charts would install. A kind
// used with a namespace is Namespaced, otherwise Cluster-scoped.
func StandInCRDs(bundleDirs ...string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	crds := map[schema.GroupKind]*apiextensionsv1.CustomResourceDefinition{}
	for _, dir := range bundleDirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Base(filepath.Dir(path)) != "templates" || !strings.HasSuffix(path, ".yaml") {
				return err
			}
			return addCustomKinds(crds, path)
		})
		if err != nil {
			return nil, err
		}
	}
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(crds))
	for _, crd := range crds {
		out = append(out, crd)
	}
	return out, nil
}

func addCustomKinds(crds map[schema.GroupKind]*apiextensionsv1.CustomResourceDefinition, path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	objs, err := DecodeDocuments(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, obj := range objs {
		gvk := obj.GroupVersionKind()
		if gvk.Group == "" || scheme.Scheme.Recognizes(gvk) {
			continue
		}
		if _, ok := crds[gvk.GroupKind()]; !ok {
			crds[gvk.GroupKind()] = schemaless(gvk, obj.GetNamespace() != "")
		}
	}
	return nil
}

// schemaless is a CRD for gvk that accepts any object.
func schemaless(gvk schema.GroupVersionKind, namespaced bool) *apiextensionsv1.CustomResourceDefinition {
	plural := strings.ToLower(gvk.Kind) + "s"
	scope := apiextensionsv1.ClusterScoped
	if namespaced {
		scope = apiextensionsv1.NamespaceScoped
	}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + gvk.Group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: gvk.Group, Scope: scope,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: gvk.Kind, ListKind: gvk.Kind + "List", Plural: plural, Singular: strings.ToLower(gvk.Kind)},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: gvk.Version, Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: ptr.To(true),
				}},
			}},
		},
	}
}
