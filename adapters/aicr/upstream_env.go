package aicr

import (
	"errors"
	"fmt"
	"strings"

	"github.com/NVIDIA/aicr/ports"
)

var (
	errEnvSyntax  = errors.New("upstream.env syntax")
	errEnvMissing = errors.New("upstream.env misses a key")
)

// parseUpstreamEnv parses upstream.env without executing it: KEY=VALUE lines whose
// values are unquoted, single-quoted with the POSIX quote-backslash-quote-quote
// escape, or double-quoted without expansion. Comments and blank lines are skipped.
func parseUpstreamEnv(data string) (map[string]string, error) {
	env := map[string]string{}
	for n, line := range strings.Split(data, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, raw, ok := strings.Cut(line, "=")
		if !ok || !validEnvKey(key) {
			return nil, fmt.Errorf("line %d: %w", n+1, errEnvSyntax)
		}
		val, err := unquoteShell(raw)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		env[key] = val
	}
	return env, nil
}

func validEnvKey(k string) bool {
	if k == "" {
		return false
	}
	for i, c := range k {
		if c != '_' && (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// unquoteShell decodes one shell word made of unquoted, single-quoted and
// double-quoted parts. Anything that would need expansion ($, `, unquoted
// whitespace, backslash outside quotes) is rejected: the file is data.
func unquoteShell(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch c := s[i]; c {
		case '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return "", fmt.Errorf("unterminated single quote: %w", errEnvSyntax)
			}
			b.WriteString(s[i+1 : i+1+end])
			i += end + 2
		case '"':
			end := strings.IndexByte(s[i+1:], '"')
			if end < 0 {
				return "", fmt.Errorf("unterminated double quote: %w", errEnvSyntax)
			}
			part := s[i+1 : i+1+end]
			if strings.ContainsAny(part, "$`\\") {
				return "", fmt.Errorf("expansion in double quotes: %w", errEnvSyntax)
			}
			b.WriteString(part)
			i += end + 2
		case '\\':
			// Only the '\'' idiom between single-quoted parts is accepted.
			if i+1 < len(s) && s[i+1] == '\'' {
				b.WriteByte('\'')
				i += 2
				continue
			}
			return "", fmt.Errorf("backslash escape: %w", errEnvSyntax)
		case '$', '`', ' ', '\t', ';', '&', '|', '<', '>', '(', ')':
			return "", fmt.Errorf("shell metacharacter %q: %w", c, errEnvSyntax)
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), nil
}

// chartSource normalises upstream.env into a chart source (FORMAT.md 4.2).
func chartSource(env map[string]string) (ports.ChartSource, error) {
	chart, repo, version := env["CHART"], env["REPO"], env["VERSION"]
	if chart == "" || version == "" {
		return ports.ChartSource{}, fmt.Errorf("CHART and VERSION are required: %w", errEnvMissing)
	}
	switch {
	case strings.HasPrefix(chart, "oci://"):
		i := strings.LastIndexByte(chart, '/')
		if i < len("oci://") || i == len(chart)-1 {
			return ports.ChartSource{}, fmt.Errorf("oci chart %q: %w", chart, errEnvSyntax)
		}
		return ports.ChartSource{Repository: chart[:i], Name: chart[i+1:], Version: version}, nil
	case strings.HasPrefix(repo, "oci://"):
		return ports.ChartSource{Repository: strings.TrimRight(repo, "/"), Name: chart, Version: version}, nil
	default:
		return ports.ChartSource{Repository: repo, Name: chart, Version: version}, nil
	}
}
