package oci

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/NVIDIA/aicr/ports"
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
// read by name on every call so a rotated Secret is picked up. It holds the
// operator's push credential; Argo CD's repo-creds Secret, also the
// administrator's, should hold a distinct pull-only credential.
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

// Suggested usernames of the in-cluster registry's two logins. The operator
// reads whatever username its push Secret holds; these only name the roles.
const (
	// InClusterPushUsername is the operator's read-write login (its push Secret).
	InClusterPushUsername = "aicr-push"
	// InClusterPullUsername is Argo CD's read-only login (the repo-creds Secret).
	InClusterPullUsername = "aicr-pull"
)

// InCluster is the in-cluster registry provider: plain HTTP (Options.PlainHTTP)
// with the operator's own push login, kept in an administrator-provided
// Secret of the operator namespace (keys username and password) read by name
// on every call, so a rotated login is picked up. Argo CD pulls with a
// distinct read-only login in its repo-creds Secret, which the operator never
// reads.
type InCluster struct {
	Secrets    SecretReader
	SecretName string
}

// Credential returns the push login for any host.
func (p InCluster) Credential(ctx context.Context, _ string) (auth.Credential, error) {
	data, err := p.Secrets.ReadSecret(ctx, p.SecretName)
	if err != nil {
		return auth.EmptyCredential, fmt.Errorf("read in-cluster registry push login %s: %w", p.SecretName, err)
	}
	user, pass := string(data["username"]), string(data["password"])
	if user == "" || pass == "" {
		return auth.EmptyCredential, fmt.Errorf("read in-cluster registry push login %s: no username or password: %w", p.SecretName, ports.ErrCredentialsUnavailable)
	}
	return auth.Credential{Username: user, Password: pass}, nil
}
