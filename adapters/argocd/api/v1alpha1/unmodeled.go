package v1alpha1

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	kjson "sigs.k8s.io/json"
)

// Unmodeled holds the JSON members of an object that its Go type does not
// model, as the API server returned them. The engine owns the objects that
// carry it (a source, its Helm options, the destination, the sync policy and
// its automation) whole: encoding emits the members again, so a comparison
// sees them and a write that rebuilds such an object removes them, and a
// Helm parameter or a second destination nobody rendered does not survive
// the engine's next write.
type Unmodeled map[string]json.RawMessage

// DeepCopyInto copies in into out.
func (in Unmodeled) DeepCopyInto(out *Unmodeled) {
	if in == nil {
		*out = nil
		return
	}
	*out = make(Unmodeled, len(in))
	for k, v := range in {
		(*out)[k] = append(json.RawMessage(nil), v...)
	}
}

// DeepCopy returns a copy of in.
func (in Unmodeled) DeepCopy() Unmodeled {
	var out Unmodeled
	in.DeepCopyInto(&out)
	return out
}

// decodeOwned decodes data into M (a struct type without methods) as the API
// machinery does, case-sensitively, and returns the members no field of M
// names.
func decodeOwned[M any](data []byte) (M, Unmodeled, error) {
	var m M
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &m); err != nil {
		return m, nil, err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return m, nil, err
	}
	known := jsonNames(reflect.TypeFor[M]())
	var rest Unmodeled
	for k, v := range members {
		if !known[k] {
			if rest == nil {
				rest = Unmodeled{}
			}
			rest[k] = v
		}
	}
	return m, rest, nil
}

// encodeOwned encodes modeled (a struct without methods) and adds the
// members of rest that no field of modeled names.
func encodeOwned(modeled any, rest Unmodeled) ([]byte, error) {
	data, err := json.Marshal(modeled)
	if err != nil || len(rest) == 0 {
		return data, err
	}
	var members map[string]json.RawMessage
	if err = json.Unmarshal(data, &members); err != nil {
		return nil, err
	}
	known := jsonNames(reflect.TypeOf(modeled))
	for k, v := range rest {
		if known[k] {
			return nil, fmt.Errorf("unmodeled member %q is a modeled field", k)
		}
		members[k] = v
	}
	return json.Marshal(members)
}

var jsonNamesCache sync.Map // reflect.Type -> map[string]bool

// jsonNames returns the JSON member names of the fields of struct type t.
func jsonNames(t reflect.Type) map[string]bool {
	if cached, ok := jsonNamesCache.Load(t); ok {
		return cached.(map[string]bool)
	}
	names := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
		case "":
			names[f.Name] = true
		default:
			names[name] = true
		}
	}
	jsonNamesCache.Store(t, names)
	return names
}
