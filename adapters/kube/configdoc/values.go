package configdoc

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/NVIDIA/aicr/domain"
)

var (
	// ErrValuesNotStorable is returned for a plan whose values cannot be stored in its values ConfigMap.
	ErrValuesNotStorable = errors.New("values cannot be stored")
	// ErrValuesMismatch is returned for stored values that do not match the plan's record of them.
	ErrValuesMismatch = errors.New("stored values do not match the plan")
)

// maxDataKeyLength is the longest ConfigMap data key Kubernetes accepts.
const maxDataKeyLength = 253

// ValuesRef is where a release's values are stored (plan schema 2): the key of a values
// ConfigMap holding them and the digest of the bytes under it, which is the release's
// valuesDigest.
type ValuesRef struct {
	// Name is the values ConfigMap's name.
	Name string `json:"name"`
	// Key is the data key, the release ID.
	Key string `json:"key"`
	// Digest is "sha256:" + hex SHA-256 of the bytes stored under Key.
	Digest string `json:"digest"`
}

// Values is the content of a plan's values ConfigMap (PLAN-3). A plan has exactly one: a
// plan whose values do not fit one ConfigMap is refused (domain.MaxPlanBytes bounds the plan
// with its values), never split.
type Values struct {
	// Name is aicr-values- and the first 16 hex digits of the content digest: the digest of
	// the canonical JSON of Data, so plans with equal values share one ConfigMap.
	Name string
	// Data has one key per release, its ID, holding the canonical JSON (domain.CanonicalJSON)
	// of the release's values; explicit nulls are kept.
	Data map[string]string
}

// EncodeValues returns the values ConfigMap of p and, in plan order, the reference of each
// release into it. A release ID that is not a ConfigMap data key, a repeated release ID and a
// valuesDigest that is not the digest of the release's values wrap ErrValuesNotStorable.
func EncodeValues(p *domain.Plan) (*Values, []ValuesRef, error) {
	v := &Values{Data: make(map[string]string, len(p.Releases))}
	content := make(map[string]any, len(p.Releases))
	refs := make([]ValuesRef, len(p.Releases))
	for i, r := range p.Releases {
		if !isDataKey(r.ID) {
			return nil, nil, fmt.Errorf("release ID %q is not a ConfigMap data key: %w", r.ID, ErrValuesNotStorable)
		}
		if _, dup := v.Data[r.ID]; dup {
			return nil, nil, fmt.Errorf("release ID %q appears twice: %w", r.ID, ErrValuesNotStorable)
		}
		raw, err := domain.CanonicalJSON(r.Values)
		if err != nil {
			return nil, nil, fmt.Errorf("values of %s: %w", r.ID, err)
		}
		refs[i] = ValuesRef{Key: r.ID, Digest: ContentDigest(raw)}
		if refs[i].Digest != r.ValuesDigest {
			return nil, nil, fmt.Errorf("release %s records valuesDigest %q, its values have %s: %w", r.ID, r.ValuesDigest, refs[i].Digest, ErrValuesNotStorable)
		}
		v.Data[r.ID], content[r.ID] = string(raw), string(raw)
	}
	digest, err := domain.Digest(content)
	if err != nil {
		return nil, nil, fmt.Errorf("digest values: %w", err)
	}
	if v.Name, err = shortName(ValuesPrefix, digest); err != nil {
		return nil, nil, err
	}
	for i := range refs {
		refs[i].Name = v.Name
	}
	return v, refs, nil
}

// DecodeValues returns the values ref names in data, the data of its values ConfigMap, after
// checking that the stored bytes have the reference's digest and that it is valuesDigest, the
// digest the plan records for the release: the operator never guesses (PLAN-6). A mismatch
// wraps ErrValuesMismatch.
func DecodeValues(ref ValuesRef, valuesDigest string, data map[string]string) (map[string]any, error) {
	raw, ok := data[ref.Key]
	switch got := ContentDigest([]byte(raw)); {
	case ref.Digest != valuesDigest:
		return nil, fmt.Errorf("valuesRef digest %s differs from valuesDigest %s: %w", ref.Digest, valuesDigest, ErrValuesMismatch)
	case !ok:
		return nil, fmt.Errorf("values ConfigMap %s has no key %s: %w", ref.Name, ref.Key, ErrValuesMismatch)
	case got != ref.Digest:
		return nil, fmt.Errorf("values ConfigMap %s holds %s under %s, the plan records %s: %w", ref.Name, got, ref.Key, ref.Digest, ErrValuesMismatch)
	}
	var values map[string]any
	if err := json.Unmarshal([]byte(raw), &values); err != nil {
		return nil, fmt.Errorf("values ConfigMap %s, key %s: %w", ref.Name, ref.Key, err)
	}
	return values, nil
}

// isDataKey reports whether s is a valid ConfigMap data key: at most 253 characters out of
// letters, digits, '-', '_' and '.', neither "." nor "..".
func isDataKey(s string) bool {
	if s == "" || len(s) > maxDataKeyLength || s == "." || s == ".." {
		return false
	}
	for _, c := range s {
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}
