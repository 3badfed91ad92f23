package domain

import (
	"errors"
	"fmt"
	"strings"
)

// Override bounds (CR-4).
const (
	// MaxOverridePathLength bounds spec.overrides[].path.
	MaxOverridePathLength = 256
	// MaxOverrideValueBytes bounds the encoded size of one override value (checked at reconcile time).
	MaxOverrideValueBytes = 16 << 10
)

// ErrInvalidOverridePath reports an override path that does not parse.
var ErrInvalidOverridePath = errors.New("invalid override path")

// OverridePath is a parsed values path: the keys from the root, e.g.
// driver.version -> ["driver", "version"].
type OverridePath []string

// ParseOverridePath parses a dotted values path. A backslash escapes the next
// character ("\." is a literal dot in a key, "\\" a backslash); empty keys, a
// trailing backslash, control characters and paths over
// MaxOverridePathLength bytes are rejected. An optional "component:" prefix
// (AICR's --set syntax, e.g. "gpuoperator:driver.version") is returned
// separately; a colon inside a key must be escaped.
func ParseOverridePath(s string) (component string, path OverridePath, err error) {
	if len(s) == 0 || len(s) > MaxOverridePathLength {
		return "", nil, fmt.Errorf("length %d: %w", len(s), ErrInvalidOverridePath)
	}
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x20 || c == 0x7f:
			return "", nil, fmt.Errorf("control character at %d: %w", i, ErrInvalidOverridePath)
		case c == '\\':
			if i+1 == len(s) {
				return "", nil, fmt.Errorf("trailing backslash: %w", ErrInvalidOverridePath)
			}
			if i++; s[i] < 0x20 || s[i] == 0x7f {
				return "", nil, fmt.Errorf("escaped control character at %d: %w", i, ErrInvalidOverridePath)
			}
			cur.WriteByte(s[i])
		case c == ':' && component == "" && len(path) == 0:
			if cur.Len() == 0 {
				return "", nil, fmt.Errorf("empty component: %w", ErrInvalidOverridePath)
			}
			component = cur.String()
			cur.Reset()
		case c == ':':
			return "", nil, fmt.Errorf("unescaped colon at %d: %w", i, ErrInvalidOverridePath)
		case c == '.':
			if cur.Len() == 0 {
				return "", nil, fmt.Errorf("empty key at %d: %w", i, ErrInvalidOverridePath)
			}
			path = append(path, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	if cur.Len() == 0 {
		return "", nil, fmt.Errorf("empty key at end: %w", ErrInvalidOverridePath)
	}
	return component, append(path, cur.String()), nil
}

// String renders the path so that ParseOverridePath returns it unchanged.
func (p OverridePath) String() string {
	parts := make([]string, len(p))
	for i, k := range p {
		parts[i] = escapeKey(k)
	}
	return strings.Join(parts, ".")
}

func escapeKey(k string) string {
	var b strings.Builder
	for i := 0; i < len(k); i++ {
		if c := k[i]; c == '.' || c == '\\' || c == ':' {
			b.WriteByte('\\')
		}
		b.WriteByte(k[i])
	}
	return b.String()
}

// Override is one spec.overrides entry.
type Override struct {
	Component string
	Path      string
	Value     any
}

// CheckOverrides validates overrides against the recipe's components (RES-3):
// InvalidOverride for a path that does not parse or a value whose canonical
// encoding exceeds MaxOverrideValueBytes, OverridePathUnknown for a component
// the recipe does not contain.
func CheckOverrides(overrides []Override, components map[string]bool) *Stall {
	for _, o := range overrides {
		if _, _, err := ParseOverridePath(o.Path); err != nil {
			return stallf(StallInvalidOverride, fmt.Sprintf("override %s %q: %v", o.Component, o.Path, err))
		}
		enc, err := CanonicalJSON(o.Value)
		if err != nil {
			return stallf(StallInvalidOverride, fmt.Sprintf("override %s %q: %v", o.Component, o.Path, err))
		}
		if len(enc) > MaxOverrideValueBytes {
			return stallf(StallInvalidOverride, fmt.Sprintf("override %s %q: value has %d bytes, at most %d",
				o.Component, o.Path, len(enc), MaxOverrideValueBytes))
		}
		if !components[o.Component] {
			return stallf(StallOverridePathUnknown, fmt.Sprintf("override names component %q, which the recipe does not contain", o.Component))
		}
	}
	return nil
}
