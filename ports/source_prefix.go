package ports

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ErrInvalidSourcePrefix reports a chart source prefix that is not an https:// or oci:// URL
// with a host and nothing but a path after it.
var ErrInvalidSourcePrefix = errors.New("not an https:// or oci:// URL prefix")

// SourcePrefix is a prefix of upstream chart source URLs: an https:// Helm repository or an
// oci:// registry, with the leading segments of their paths. It covers a source of the same
// scheme and host (port included) whose path starts with the same whole segments, so
// https://a.example/x covers https://a.example/x/y but neither https://a.example/xy nor
// https://a.example.evil/x.
type SourcePrefix struct {
	scheme, host string
	segments     []string
}

// ParseSourcePrefix reads an https:// or oci:// URL prefix: a host, an optional port and path,
// no user information, query or fragment. A trailing slash, the case of the host and an
// explicit port 443 do not matter.
func ParseSourcePrefix(s string) (SourcePrefix, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "oci") || u.Hostname() == "" ||
		u.Opaque != "" || u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(s, "#") {
		return SourcePrefix{}, fmt.Errorf("%q: %w", s, ErrInvalidSourcePrefix)
	}
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port := u.Port(); port != "" && port != "443" {
		host += ":" + port
	}
	var segments []string
	for _, seg := range strings.Split(u.Path, "/") {
		switch seg {
		case "":
		case ".", "..":
			return SourcePrefix{}, fmt.Errorf("%q: path segment %q: %w", s, seg, ErrInvalidSourcePrefix)
		default:
			segments = append(segments, seg)
		}
	}
	return SourcePrefix{scheme: u.Scheme, host: host, segments: segments}, nil
}

// String returns the prefix in its canonical form: scheme://host[/path], the host in lower
// case, without port 443 and without a trailing slash. Two prefixes are the same when their
// canonical forms are.
func (p SourcePrefix) String() string {
	return p.scheme + "://" + strings.Join(append([]string{p.host}, p.segments...), "/")
}

// Covers reports whether the chart source URL source lies under p.
func (p SourcePrefix) Covers(source string) bool {
	s, err := ParseSourcePrefix(source)
	if err != nil || s.scheme != p.scheme || s.host != p.host || len(s.segments) < len(p.segments) {
		return false
	}
	for i, seg := range p.segments {
		if s.segments[i] != seg {
			return false
		}
	}
	return true
}

// LongestSourcePrefix returns the index of the prefix that covers source with the most path
// segments, or false when none covers it.
func LongestSourcePrefix(prefixes []SourcePrefix, source string) (int, bool) {
	best := -1
	for i, p := range prefixes {
		if p.Covers(source) && (best < 0 || len(p.segments) > len(prefixes[best].segments)) {
			best = i
		}
	}
	return best, best >= 0
}
