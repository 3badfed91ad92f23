package argocd

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/ports"
)

// FieldManager is the field manager of every write of the engine to an Application, the name
// its managedFields show for the operator.
const FieldManager = "aicr-operator"

var _ ports.SpecWriters = (*Engine)(nil)

// OtherSpecWriters returns the field managers other than FieldManager whose managedFields
// entries of ref's Application (the main resource, not a subresource) hold fields of its spec,
// the latest first: who else writes what the operator writes. It reads through Config.Reader,
// past the manager's cache, which drops managedFields; a reader that drops them yields none.
func (e *Engine) OtherSpecWriters(ctx context.Context, ref ports.ReleaseRef) ([]string, error) {
	app := &argov1.Application{}
	err := e.cfg.Reader.Get(ctx, e.key(ref), app)
	if isNotFound(err) {
		return nil, wrap("writers of "+ref.String(), ports.ErrTargetNotFound)
	}
	if err != nil {
		return nil, wrap("writers of "+ref.String(), err)
	}
	return specWriters(app.ManagedFields), nil
}

// specWriters are the managers of entries holding spec fields, other than FieldManager, the
// latest first, each once.
func specWriters(entries []metav1.ManagedFieldsEntry) []string {
	var spec []metav1.ManagedFieldsEntry
	for _, mf := range entries {
		if mf.Manager != FieldManager && mf.Subresource == "" && ownsSpec(mf.FieldsV1) {
			spec = append(spec, mf)
		}
	}
	slices.SortStableFunc(spec, func(a, b metav1.ManagedFieldsEntry) int {
		return cmp.Compare(timeOf(b.Time), timeOf(a.Time))
	})
	var out []string
	for _, mf := range spec {
		if !slices.Contains(out, mf.Manager) {
			out = append(out, mf.Manager)
		}
	}
	return out
}

// ownsSpec reports whether fields, a managedFields entry's field set, holds fields of the
// object's spec: a top-level "f:spec" key (the same key deeper, an annotation named spec, is
// not the spec).
func ownsSpec(fields *metav1.FieldsV1) bool {
	if fields == nil {
		return false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(fields.GetRawBytes(), &top) != nil {
		return false
	}
	_, ok := top["f:spec"]
	return ok
}

// timeOf is an entry's time in Unix nanoseconds, 0 when it has none.
func timeOf(t *metav1.Time) int64 {
	if t == nil {
		return 0
	}
	return t.UnixNano()
}
