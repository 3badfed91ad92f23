package oci

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/NVIDIA/aicr/ports"
)

// BundleTarget returns <registry>/bundles/cluster, whether the Job pushes over
// plain HTTP (the inCluster provider), and a docker config.json holding only
// the operator's push credential for the registry host, as the provider
// serves it right now: the static provider's entry for the host, the
// in-cluster push login, or the current ECR push token (valid 12 hours). The
// Job's run-scoped Secret carries it and is deleted with the Job (RES-8).
// Without a credential provider (an anonymous registry) the config has no
// entries. Provider errors keep their ports sentinel.
func (r *Registry) BundleTarget(ctx context.Context) (ports.BundleTarget, error) {
	t := ports.BundleTarget{Repository: r.repoRef(BundlesRepository), PlainHTTP: r.opts.PlainHTTP}
	cred := auth.EmptyCredential
	if r.opts.Credentials != nil {
		var err error
		if cred, err = r.opts.Credentials.Credential(ctx, r.host); err != nil {
			return ports.BundleTarget{}, fmt.Errorf("push credential for %s: %w", t.Repository, err)
		}
	}
	cfg, err := dockerConfigFor(r.host, cred)
	if err != nil {
		return ports.BundleTarget{}, fmt.Errorf("push credential for %s: %w", t.Repository, err)
	}
	t.DockerConfig = cfg
	return t, nil
}

// dockerConfigEntry is one auths entry of a docker config.json.
type dockerConfigEntry struct {
	Auth          string `json:"auth,omitempty"`
	IdentityToken string `json:"identitytoken,omitempty"`
}

// dockerConfigFor encodes cred as the only entry of a docker config.json for
// host (none for the empty credential). A credential the docker config cannot
// carry (a bare access token) wraps ports.ErrCredentialsUnavailable.
func dockerConfigFor(host string, cred auth.Credential) ([]byte, error) {
	auths := map[string]dockerConfigEntry{}
	switch {
	case cred == auth.EmptyCredential:
	case cred.AccessToken != "":
		return nil, fmt.Errorf("an access token cannot be handed to a Job in a docker config: %w", ports.ErrCredentialsUnavailable)
	case cred.RefreshToken != "":
		auths[host] = dockerConfigEntry{IdentityToken: cred.RefreshToken}
	default:
		auths[host] = dockerConfigEntry{Auth: base64.StdEncoding.EncodeToString([]byte(cred.Username + ":" + cred.Password))}
	}
	raw, err := json.Marshal(map[string]any{"auths": auths})
	if err != nil {
		return nil, fmt.Errorf("encode docker config: %w", err)
	}
	return raw, nil
}
