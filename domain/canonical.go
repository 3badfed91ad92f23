package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrNotCanonical reports a value that has no canonical JSON encoding
// (NaN or infinite numbers, unsupported Go types).
var ErrNotCanonical = errors.New("value has no canonical json encoding")

// CanonicalJSON encodes v as canonical JSON: object keys sorted, no
// whitespace, integral numbers without a fraction, other numbers in Python's
// shortest repr, and every character outside printable ASCII escaped as
// \uXXXX. The result is byte-identical to Python's
// json.dumps(v, sort_keys=True, separators=(",", ":")) for values decoded
// from YAML or JSON, so digests agree across tools, processes and
// architectures. Supported types: nil, bool, string, float64, float32, int,
// int64, uint64, json-like []any and map[string]any.
func CanonicalJSON(v any) ([]byte, error) {
	buf := make([]byte, 0, 256)
	return appendCanonical(buf, v)
}

// bufPool recycles encoding buffers between digests (plans are hashed often).
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// Digest returns "sha256:" + hex SHA-256 of v's canonical JSON.
func Digest(v any) (string, error) {
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	b, err := appendCanonical((*bp)[:0], v)
	if err != nil {
		return "", err
	}
	*bp = b
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

func appendCanonical(buf []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(buf, "null"...), nil
	case bool:
		return strconv.AppendBool(buf, x), nil
	case string:
		return appendString(buf, x), nil
	case float64:
		return appendFloat(buf, x)
	case float32:
		return appendFloat(buf, float64(x))
	case int:
		return strconv.AppendInt(buf, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(buf, x, 10), nil
	case uint64:
		return strconv.AppendUint(buf, x, 10), nil
	case []any:
		buf = append(buf, '[')
		for i, e := range x {
			if i > 0 {
				buf = append(buf, ',')
			}
			var err error
			if buf, err = appendCanonical(buf, e); err != nil {
				return nil, err
			}
		}
		return append(buf, ']'), nil
	case []string:
		buf = append(buf, '[')
		for i, e := range x {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendString(buf, e)
		}
		return append(buf, ']'), nil
	case map[string]any:
		return appendMap(buf, x)
	default:
		return nil, fmt.Errorf("type %T: %w", v, ErrNotCanonical)
	}
}

func appendMap(buf []byte, m map[string]any) ([]byte, error) {
	var small [16]string
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys) // Python sorts by code point; UTF-8 byte order is the same.
	buf = append(buf, '{')
	for i, k := range keys {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendString(buf, k)
		buf = append(buf, ':')
		var err error
		if buf, err = appendCanonical(buf, m[k]); err != nil {
			return nil, err
		}
	}
	return append(buf, '}'), nil
}

// appendFloat writes integral values as integers (YAML/JSON integers decode to
// float64 in Helm) and other values like Python's float repr.
func appendFloat(buf []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("number %v: %w", f, ErrNotCanonical)
	}
	if f == math.Trunc(f) {
		if f == 0 {
			return append(buf, '0'), nil
		}
		return strconv.AppendFloat(buf, f, 'f', -1, 64), nil
	}
	if exp := math.Floor(math.Log10(math.Abs(f))); exp < -4 || exp >= 16 {
		return strconv.AppendFloat(buf, f, 'e', -1, 64), nil
	}
	return strconv.AppendFloat(buf, f, 'f', -1, 64), nil
}

const hexDigits = "0123456789abcdef"

// appendString escapes like Python's json.dumps with ensure_ascii=True.
func appendString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			if c == '"' || c == '\\' {
				buf = append(buf, '\\', c)
				i++
				continue
			}
			j := i + 1
			for j < len(s) && s[j] >= 0x20 && s[j] < 0x7f && s[j] != '"' && s[j] != '\\' {
				j++
			}
			buf = append(buf, s[i:j]...)
			i = j
			continue
		}
		switch c {
		case '\n':
			buf = append(buf, `\n`...)
			i++
			continue
		case '\r':
			buf = append(buf, `\r`...)
			i++
			continue
		case '\t':
			buf = append(buf, `\t`...)
			i++
			continue
		case '\b':
			buf = append(buf, `\b`...)
			i++
			continue
		case '\f':
			buf = append(buf, `\f`...)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r >= 0x10000 {
			r1, r2 := utf16.EncodeRune(r)
			buf = appendU(appendU(buf, r1), r2)
			continue
		}
		buf = appendU(buf, r)
	}
	return append(buf, '"')
}

func appendU(buf []byte, r rune) []byte {
	return append(buf, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}
