package oci

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/errcode"
	"oras.land/oras-go/v2/registry/remote/retry"

	"github.com/NVIDIA/aicr/adapters/chartref"
	"github.com/NVIDIA/aicr/ports"
)

// Repository paths under the runtime registry (REG-1).
const (
	// ChartsPath holds mirrored upstream charts.
	ChartsPath = chartref.ChartsDir
	// WrappersPath holds bundle-local (wrapper) charts.
	WrappersPath = chartref.WrappersDir
	// BundlesRepository holds rendered bundles and validation evidence.
	BundlesRepository = "bundles/cluster"
)

// Options configures a Registry.
type Options struct {
	// Registry is the runtime registry prefix, with or without oci://
	// (for example oci://123.dkr.ecr.eu-west-1.amazonaws.com/aicr).
	Registry string
	// Credentials provides the runtime registry's credentials (nil: anonymous).
	Credentials CredentialProvider
	// PlainHTTP talks plain HTTP to the runtime registry (the in-cluster provider).
	PlainHTTP bool
	// HTTPClient is the base client for every request (nil: NewHTTPClient()):
	// its transport and timeout (none: requestTimeout) are kept, its redirect
	// policy is replaced. Tests pass the client of an httptest TLS server.
	HTTPClient *http.Client
	// Retry bounds the backoff of transient failures (nil: oras-go's default
	// policy, 5 retries between 200 ms and 3 s, cancelled with the context).
	Retry retry.Policy
	// UpstreamCredentials name the Secrets of private upstream chart sources (none: every
	// upstream request is anonymous); UpstreamLogins reads them by name.
	UpstreamCredentials []UpstreamCredential
	// UpstreamLogins reads the Secrets of UpstreamCredentials at every mirror, so a rotated
	// Secret is used on the next one. Required with UpstreamCredentials.
	UpstreamLogins LoginReader
}

// Registry is the ports.Registry over an OCI registry. It is safe for concurrent use.
type Registry struct {
	host, prefix string
	opts         Options
	// http talks to the runtime registry, upstream to oci:// upstreams, helm
	// to Helm repositories (see transport.go for their policies).
	http, upstream, helm *http.Client
	cache                auth.Cache
	// upstreamPrefixes are the parsed prefixes of opts.UpstreamCredentials, in their order.
	upstreamPrefixes []ports.SourcePrefix
}

var _ ports.Registry = (*Registry)(nil)

// New returns a Registry for opts.Registry.
func New(opts Options) (*Registry, error) {
	ref := chartref.Base(opts.Registry)
	host, prefix, _ := strings.Cut(ref, "/")
	if host == "" {
		return nil, fmt.Errorf("parse registry %q: %w", opts.Registry, errInvalidReference)
	}
	base := opts.HTTPClient
	if base == nil {
		base = NewHTTPClient()
	}
	policy := opts.Retry
	if policy == nil {
		policy = retry.DefaultPolicy
	}
	prefixes, err := upstreamPrefixes(opts)
	if err != nil {
		return nil, err
	}
	tr := &retry.Transport{Base: base.Transport, Policy: func() retry.Policy { return policy }}
	return &Registry{
		host: host, prefix: prefix, opts: opts, upstreamPrefixes: prefixes,
		http:     newClient(base, tr, noDowngrade),
		upstream: newClient(base, httpsOnly{tr}, upstreamRedirect),
		helm:     newClient(base, httpsOnly{helmBasicAuth{tr}}, sameHostRedirect),
		cache:    auth.NewCache(),
	}, nil
}

// upstreamPrefixes parses the prefixes of opts.UpstreamCredentials, which need opts.UpstreamLogins.
func upstreamPrefixes(opts Options) ([]ports.SourcePrefix, error) {
	if len(opts.UpstreamCredentials) > 0 && opts.UpstreamLogins == nil {
		return nil, errors.New("upstream credentials need a reader of their Secrets")
	}
	prefixes := make([]ports.SourcePrefix, 0, len(opts.UpstreamCredentials))
	for _, c := range opts.UpstreamCredentials {
		p, err := ports.ParseSourcePrefix(c.Repository)
		if err != nil {
			return nil, fmt.Errorf("upstream credentials of Secret %s: %w", c.Secret, err)
		}
		prefixes = append(prefixes, p)
	}
	return prefixes, nil
}

var errInvalidReference = errors.New("invalid reference")

// Base returns the registry prefix without scheme (host[/path]).
func (r *Registry) Base() string {
	if r.prefix == "" {
		return r.host
	}
	return r.host + "/" + r.prefix
}

// repoRef returns <registry>/<path>.
func (r *Registry) repoRef(path string) string { return r.Base() + "/" + path }

// repository opens a repository of the runtime registry (own true) with its
// credentials, or of an upstream oci:// source (https only) anonymously.
func (r *Registry) repository(ref string, own bool) (*remote.Repository, error) {
	repo, err := remote.NewRepository(strings.TrimPrefix(ref, "oci://"))
	if err != nil {
		return nil, fmt.Errorf("parse reference %q: %w", ref, errors.Join(errInvalidReference, err))
	}
	client := &auth.Client{Client: r.upstream, Cache: r.cache}
	if own {
		client.Client = r.http
		if r.opts.Credentials != nil {
			client.Credential = r.opts.Credentials.Credential
		}
	}
	repo.Client, repo.PlainHTTP = client, own && r.opts.PlainHTTP
	return repo, nil
}

// Resolve returns the manifest digest of ref.
func (r *Registry) Resolve(ctx context.Context, ref string) (ports.Digest, error) {
	repo, err := r.repository(ref, true)
	if err != nil {
		return "", err
	}
	desc, err := repo.Resolve(ctx, repo.Reference.Reference)
	if err != nil {
		return "", mapErr("resolve "+ref, err)
	}
	return ports.Digest(desc.Digest), nil
}

// mapErr wraps err for what with the ports sentinel it stands for: 401 and
// 403 are ErrUnauthorized, and so is a basic auth challenge the client has no
// login for; 404 and unknown names are ErrArtifactNotFound; credential
// provider errors already wrap their sentinel. Anything else is transient and
// wrapped unchanged.
func mapErr(what string, err error) error {
	for _, s := range []error{ports.ErrCredentialsUnavailable, ports.ErrCredentialsStale, ports.ErrUnauthorized, ports.ErrArchiveRejected} {
		if errors.Is(err, s) {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	if errors.Is(err, auth.ErrBasicCredentialNotFound) {
		return fmt.Errorf("%s: %w: %w", what, ports.ErrUnauthorized, err)
	}
	var resp *errcode.ErrorResponse
	if errors.As(err, &resp) {
		switch resp.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			return fmt.Errorf("%s: %w: %w", what, ports.ErrUnauthorized, err)
		case http.StatusNotFound:
			return fmt.Errorf("%s: %w: %w", what, ports.ErrArtifactNotFound, err)
		}
	}
	if errors.Is(err, errdef.ErrNotFound) {
		return fmt.Errorf("%s: %w: %w", what, ports.ErrArtifactNotFound, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}
