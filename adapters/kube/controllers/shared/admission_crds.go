package shared

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/kube/crdschema"
)

// crdCheck compares the live CRDs of the operator's API with the digests of the CRDs it was
// built with (v1alpha1.CRDSchemaDigests): CEL rules and bounds of the API enforce what no
// admission policy repeats. A CRD is read whole only when its resourceVersion changed since it
// was last proven; the manager reads CRDs uncached (manager.New), by name.
type crdCheck struct {
	reader  client.Reader
	digests map[string]string
	mu      sync.Mutex
	// proven is the resourceVersion of each CRD last found to match its digest.
	proven map[string]string
}

// newCRDCheck returns the check of the CRDs named in digests, read through reader.
func newCRDCheck(reader client.Reader, digests map[string]string) *crdCheck {
	return &crdCheck{reader: reader, digests: maps.Clone(digests), proven: map[string]string{}}
}

// problems says, per CRD in name order, what is wrong with it (none when all match).
func (c *crdCheck) problems(ctx context.Context) ([]string, error) {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(c.digests)) {
		problem, err := c.problem(ctx, name)
		if err != nil {
			return nil, err
		}
		if problem != "" {
			out = append(out, problem)
		}
	}
	return out, nil
}

// problem says what is wrong with CRD name ("" when it matches its digest).
func (c *crdCheck) problem(ctx context.Context, name string) (string, error) {
	key := types.NamespacedName{Name: name}
	meta := &metav1.PartialObjectMetadata{}
	meta.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	switch err := c.reader.Get(ctx, key, meta); {
	case apierrors.IsNotFound(err):
		return "CustomResourceDefinition " + name + " is missing", nil
	case err != nil:
		return "", fmt.Errorf("get CustomResourceDefinition %s: %w", name, err)
	}
	c.mu.Lock()
	proven := c.proven[name] == meta.ResourceVersion
	c.mu.Unlock()
	if proven {
		return "", nil
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := c.reader.Get(ctx, key, crd); err != nil {
		return "", fmt.Errorf("get CustomResourceDefinition %s: %w", name, err)
	}
	got, err := crdschema.Digest(crd)
	if err != nil {
		return "", err
	}
	if want := c.digests[name]; got != want {
		return fmt.Sprintf("CustomResourceDefinition %s does not enforce the rules of this operator's API (schema digest %.12s, built with %.12s)",
			name, got, want), nil
	}
	c.mu.Lock()
	c.proven[name] = crd.ResourceVersion
	c.mu.Unlock()
	return "", nil
}
