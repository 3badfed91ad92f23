package app

import (
	"fmt"
	"strings"

	"github.com/NVIDIA/aicr/ports"
)

// UpstreamCredential names the kubernetes.io/basic-auth Secret of the operator namespace whose
// login the operator sends to the private upstream chart sources under Repository, an https://
// Helm repository or oci:// registry URL prefix (--upstream-credentials).
type UpstreamCredential struct {
	Repository string
	Secret     string
}

// addUpstreamCredential parses one --upstream-credentials value, <prefix>=<secret>; the
// prefix and the name are checked by Validate.
func (c *Config) addUpstreamCredential(s string) error {
	i := strings.LastIndex(s, "=")
	if i < 0 {
		return fmt.Errorf("%q must be <repository prefix>=<secret>, for example https://helm.ngc.nvidia.com/nvidia=ngc-helm", s)
	}
	c.UpstreamCredentials = append(c.UpstreamCredentials, UpstreamCredential{
		Repository: strings.TrimSpace(s[:i]), Secret: strings.TrimSpace(s[i+1:]),
	})
	return nil
}

// validateUpstream checks each upstream credential: an https:// or oci:// prefix, a Secret
// name, and no prefix given twice (compared in canonical form, so a trailing slash or the
// host's case does not make another one).
func (c Config) validateUpstream() []error {
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfig}, args...)...))
	}
	seen := map[string]bool{}
	for _, cred := range c.UpstreamCredentials {
		p, err := ports.ParseSourcePrefix(cred.Repository)
		if err != nil {
			add("--upstream-credentials %v: use https://<host>[/<path>] or oci://<host>[/<path>] (upstream.credentials)", err)
		} else if seen[p.String()] {
			add("--upstream-credentials repository %s is given twice (upstream.credentials)", p)
		} else {
			seen[p.String()] = true
		}
		if len(cred.Secret) > 253 || !objectName.MatchString(cred.Secret) {
			add("--upstream-credentials secret %q of %s is not a valid Secret name (upstream.credentials)", cred.Secret, cred.Repository)
		}
	}
	return errs
}
