package app

import (
	"fmt"
	"regexp"
	"strings"
)

// contentDigest is a SHA-256 digest in lowercase hex, as the chart's sha256sum writes it.
var contentDigest = regexp.MustCompile(`^[0-9a-f]{64}$`)

// addAdmissionDigests parses one --admission-digests value: comma-separated <policy>=<sha256>
// pairs, the content digest of each admission policy and its binding as the chart renders
// them. A pair without "=", a digest that is not 64 lowercase hex digits or a policy named
// twice is refused.
func (c *Config) addAdmissionDigests(s string) error {
	for _, pair := range splitList(s) {
		name, digest, ok := strings.Cut(pair, "=")
		name, digest = strings.TrimSpace(name), strings.TrimSpace(digest)
		switch {
		case !ok || name == "":
			return fmt.Errorf("%q must be <policy>=<sha256 hex>", pair)
		case !contentDigest.MatchString(digest):
			return fmt.Errorf("policy %q: %q is not a SHA-256 digest in lowercase hex", name, digest)
		}
		if _, dup := c.AdmissionDigests[name]; dup {
			return fmt.Errorf("policy %q is given twice", name)
		}
		if c.AdmissionDigests == nil {
			c.AdmissionDigests = map[string]string{}
		}
		c.AdmissionDigests[name] = digest
	}
	return nil
}

// setEngineProjectDigest parses --engine-project-digest: the content digest of the engine
// project's spec as the chart renders it, 64 lowercase hex digits.
func (c *Config) setEngineProjectDigest(s string) error {
	s = strings.TrimSpace(s)
	if !contentDigest.MatchString(s) {
		return fmt.Errorf("%q is not a SHA-256 digest in lowercase hex", s)
	}
	c.EngineProjectDigest = s
	return nil
}
