package oci

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/nvidia/aicr-operator/ports"
)

// CredentialProvider returns the credential for a registry host. Errors wrap
// ports.ErrCredentialsUnavailable (no credential can be obtained),
// ports.ErrCredentialsStale (the credential expired and was not refreshed) or
// ports.ErrUnauthorized (the provider's own identity was denied); any other
// error is transient. Implementations are safe for concurrent use.
type CredentialProvider interface {
	// Credential returns the credential for hostport (auth.EmptyCredential: anonymous).
	Credential(ctx context.Context, hostport string) (auth.Credential, error)
}

// SecretReader reads the data of a Secret by name. It returns an error
// wrapping ports.ErrCredentialsUnavailable when the Secret does not exist and
// ports.ErrUnauthorized when reading it is denied.
type SecretReader interface {
	// ReadSecret returns the Secret's data.
	ReadSecret(ctx context.Context, name string) (map[string][]byte, error)
}

// DockerConfigKey is the data key of a kubernetes.io/dockerconfigjson Secret.
const DockerConfigKey = ".dockerconfigjson"

// Static is the static provider: an admin-provided docker config Secret,
// read by name on every call so a rotated Secret is picked up.
type Static struct {
	Secrets    SecretReader
	SecretName string
}

// Credential returns the docker config entry for hostport.
func (s Static) Credential(ctx context.Context, hostport string) (auth.Credential, error) {
	data, err := s.Secrets.ReadSecret(ctx, s.SecretName)
	if err != nil {
		return auth.EmptyCredential, fmt.Errorf("read registry secret %s: %w", s.SecretName, err)
	}
	raw, ok := data[DockerConfigKey]
	if !ok {
		return auth.EmptyCredential, fmt.Errorf("read registry secret %s: no %s key: %w",
			s.SecretName, DockerConfigKey, ports.ErrCredentialsUnavailable)
	}
	return dockerConfigCredential(raw, hostport)
}

type dockerConfig struct {
	Auths map[string]struct {
		Username string `json:"username"`
		Password string `json:"password"`
		Auth     string `json:"auth"`
	} `json:"auths"`
}

// dockerConfigCredential finds hostport in a docker config JSON; keys may
// carry a scheme or a path (https://host/v1/).
func dockerConfigCredential(raw []byte, hostport string) (auth.Credential, error) {
	var cfg dockerConfig
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return auth.EmptyCredential, fmt.Errorf("parse docker config: %w: %w", ports.ErrCredentialsUnavailable, err)
	}
	for key, a := range cfg.Auths {
		host := strings.TrimPrefix(strings.TrimPrefix(key, "https://"), "http://")
		host, _, _ = strings.Cut(host, "/")
		if host != hostport {
			continue
		}
		user, pass := a.Username, a.Password
		if a.Auth != "" {
			dec, err := base64.StdEncoding.DecodeString(a.Auth)
			if err != nil {
				return auth.EmptyCredential, fmt.Errorf("decode docker config auth of %s: %w: %w",
					hostport, ports.ErrCredentialsUnavailable, err)
			}
			user, pass, _ = strings.Cut(string(dec), ":")
		}
		if user == "" && pass == "" {
			break
		}
		return auth.Credential{Username: user, Password: pass}, nil
	}
	return auth.EmptyCredential, fmt.Errorf("find docker config entry for %s: %w", hostport, ports.ErrCredentialsUnavailable)
}

// Login is a username and password pair.
type Login struct {
	Username string
	Password string
}

// InClusterUsername is the username of the generated in-cluster registry
// login, the one the chart writes into the repo-creds Secret.
const InClusterUsername = "aicr"

// InCluster is the in-cluster registry provider: plain HTTP (Options.PlainHTTP)
// with a login generated at install time and kept in a Secret with the keys
// username and password (the chart's repo-creds Secret has both).
type InCluster struct {
	Secrets    SecretReader
	SecretName string
}

// Credential returns the generated login for any host.
func (p InCluster) Credential(ctx context.Context, _ string) (auth.Credential, error) {
	data, err := p.Secrets.ReadSecret(ctx, p.SecretName)
	if err != nil {
		return auth.EmptyCredential, fmt.Errorf("read in-cluster registry login %s: %w", p.SecretName, err)
	}
	user, pass := string(data["username"]), string(data["password"])
	if user == "" || pass == "" {
		return auth.EmptyCredential, fmt.Errorf("read in-cluster registry login %s: %w", p.SecretName, ports.ErrCredentialsUnavailable)
	}
	return auth.Credential{Username: user, Password: pass}, nil
}
