package argocd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
)

// ProjectDigest is the content digest of an AppProject's spec, the one the chart's
// aicr-operator.appProjectDigest template computes from the AppProject it renders: the SHA-256
// of the spec as JSON with sorted keys, without the top-level fields that hold nothing (null,
// "", [] or {}), which Argo CD reads as absent and a server-side apply may drop or keep. Any
// other difference, a default a later Argo CD CRD adds included, makes the digests differ: the
// guard then stalls, it never trusts a project it cannot compare.
func ProjectDigest(spec map[string]any) (string, error) {
	kept := make(map[string]any, len(spec))
	for k, v := range spec {
		if !empty(v) {
			kept[k] = v
		}
	}
	b, err := json.Marshal(kept)
	if err != nil {
		return "", fmt.Errorf("encode the AppProject spec: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// empty reports whether v holds nothing: null, "", an empty list or an empty object.
func empty(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}

// ProjectGuard returns the check of the AppProject namespace/name against the digest of the
// spec the chart rendered (ProjectDigest, --engine-project-digest): it says what is wrong ("" when
// the live spec is the chart's), naming the object; nothing while Argo CD's API is not served,
// which the engine reports itself (EngineMissing). reader should read uncached (the operator may
// get its AppProject but not list or watch it). Any other API error but NotFound is returned.
func ProjectGuard(reader client.Reader, namespace, name, digest string) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		obj := "AppProject " + namespace + "/" + name
		project := &unstructured.Unstructured{}
		project.SetGroupVersionKind(argov1.SchemeGroupVersion.WithKind("AppProject"))
		switch err := reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, project); {
		case meta.IsNoMatchError(err), isMissingResource(err):
			// Argo CD's CRDs are not installed (yet): the engine reports EngineMissing, and
			// there is no project to trust.
			return "", nil
		case apierrors.IsNotFound(err):
			return obj + " is missing", nil
		case err != nil:
			return "", fmt.Errorf("get %s: %w", obj, err)
		}
		spec, _, err := unstructured.NestedMap(project.Object, "spec")
		if err != nil {
			return obj + " has a spec that is not an object", nil
		}
		got, err := ProjectDigest(spec)
		if err != nil {
			return "", err
		}
		if got != digest {
			return fmt.Sprintf("%s is not what the chart rendered (spec digest %.12s, the chart's %.12s): sources, destinations or allowed kinds may have been widened",
				obj, got, digest), nil
		}
		return "", nil
	}
}
