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

// Override is one spec.overrides entry.
type Override struct {
	Component string
	Path      string
	Value     any
}

// CheckOverrides validates overrides (RES-3): InvalidOverride for a path
// that does not parse or a value whose canonical encoding exceeds
// MaxOverrideValueBytes. Whether a component exists is the bundle's to say
// (see UnlistedComponents and RejectedOverride).
func CheckOverrides(overrides []Override) *Stall {
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
	}
	return nil
}

// UnlistedComponents returns, once each and in spec order, the components
// overrides name that are not components of the recipe. AICR also accepts a
// registry valueOverrideKeys alias of a component (gpuoperator for
// gpu-operator), which only AICR knows, so such a name is not rejected
// before the bundle Job ran.
func UnlistedComponents(overrides []Override, components map[string]bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, o := range overrides {
		if !components[o.Component] && !seen[o.Component] {
			seen[o.Component] = true
			out = append(out, o.Component)
		}
	}
	return out
}

// RejectedOverride turns the AICRInvalidRequest stall of a bundle Job whose
// message names a component of unlisted into OverridePathUnknown: AICR knew
// neither a component nor an alias of that name (RES-3). Any other stall is
// returned as it is.
func RejectedOverride(s *Stall, unlisted []string) *Stall {
	if s == nil || s.Reason() != StallAICRInvalidRequest {
		return s
	}
	for _, c := range unlisted {
		if namesComponent(s.Message(), c) {
			return stallf(StallOverridePathUnknown, fmt.Sprintf(
				"override names component %q, which is neither a component of the recipe nor an alias AICR knows: %s", c, s.Message()))
		}
	}
	return s
}

// namesComponent reports whether msg contains name as a whole word: not
// inside a longer component name (letters, digits, hyphens).
func namesComponent(msg, name string) bool {
	for from := 0; ; {
		i := strings.Index(msg[from:], name)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(name)
		if (start == 0 || !componentChar(msg[start-1])) && (end == len(msg) || !componentChar(msg[end])) {
			return true
		}
		from = start + 1
	}
}

func componentChar(c byte) bool {
	return c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
