package oci

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/NVIDIA/aicr/ports"
)

// UpstreamCredential names the kubernetes.io/basic-auth Secret whose login the operator sends
// to the private upstream chart sources under Repository, an https:// Helm repository or
// oci:// registry URL prefix (see ports.SourcePrefix for what it covers).
type UpstreamCredential struct {
	Repository string
	Secret     string
}

// LoginReader reads the login of a kubernetes.io/basic-auth Secret by name. Its errors wrap
// ports.ErrCredentialsUnavailable when the Secret is missing, of another type or without a
// username or password, and ports.ErrUnauthorized when reading it is denied.
type LoginReader interface {
	// ReadLogin returns the Secret's username and password.
	ReadLogin(ctx context.Context, name string) (Login, error)
}

// upstreamLogin is the login an upstream chart source gets and the Secret it was read from;
// the zero value is anonymous.
type upstreamLogin struct {
	Login
	secret string
}

// upstreamLoginFor reads, at every call so a rotated Secret is used at once, the login of the
// credential whose prefix covers source with the most path segments; without one it returns
// the anonymous login.
func (r *Registry) upstreamLoginFor(ctx context.Context, source string) (upstreamLogin, error) {
	i, ok := ports.LongestSourcePrefix(r.upstreamPrefixes, source)
	if !ok {
		return upstreamLogin{}, nil
	}
	cred := r.opts.UpstreamCredentials[i]
	login, err := r.opts.UpstreamLogins.ReadLogin(ctx, cred.Secret)
	if err != nil {
		return upstreamLogin{}, fmt.Errorf("read the login for %s from Secret %s (upstream.credentials): %w", source, cred.Secret, err)
	}
	return upstreamLogin{Login: login, secret: cred.Secret}, nil
}

// explain says what an upstream's 401 or 403 (ports.ErrUnauthorized) means for the
// administrator: the upstream refused the login of a Secret, or it needs one.
func (l upstreamLogin) explain(err error) error {
	switch {
	case !errors.Is(err, ports.ErrUnauthorized):
		return err
	case l.secret == "":
		return fmt.Errorf("the upstream needs credentials: set upstream.credentials: %w", err)
	default:
		return fmt.Errorf("the upstream refused the credentials of Secret %s: %w", l.secret, err)
	}
}

// upstreamRepository opens the upstream oci:// repository ref; with a login, oras-go sends it
// for ref's registry host only (through the token exchange the registry asks for) and drops
// the Authorization header on a redirect off the registry's origin (blob storage). The login
// gets a token cache of its own, so no token of another Secret or of a rotated one is reused.
func (r *Registry) upstreamRepository(ref string, login upstreamLogin) (*remote.Repository, error) {
	repo, err := r.repository(ref, false)
	if err != nil || login.secret == "" {
		return repo, err
	}
	repo.Client = &auth.Client{Client: r.upstream, Cache: auth.NewCache(), Credential: auth.StaticCredential(
		repo.Reference.Registry, auth.Credential{Username: login.Username, Password: login.Password})}
	return repo, nil
}

// helmLoginKey is the context key of the login of a Helm repository's requests.
type helmLoginKey struct{}

// helmLogin is a login and the repository URL whose host alone gets it.
type helmLogin struct {
	origin *url.URL
	login  Login
}

// withHelmLogin returns ctx carrying login for the requests to origin's host (ctx itself
// for the anonymous login).
func withHelmLogin(ctx context.Context, origin *url.URL, login upstreamLogin) context.Context {
	if login.secret == "" {
		return ctx
	}
	return context.WithValue(ctx, helmLoginKey{}, helmLogin{origin: origin, login: login.Login})
}

// helmBasicAuth is the transport of Helm repository requests: it sends the login its
// request's context carries as HTTP basic auth when the request is https on the host the
// login is for, so neither a redirect nor an index entry ever carries it to another host.
type helmBasicAuth struct{ next http.RoundTripper }

// RoundTrip sends req, with the login of its context when req goes to that login's host.
func (t helmBasicAuth) RoundTrip(req *http.Request) (*http.Response, error) {
	hl, ok := req.Context().Value(helmLoginKey{}).(helmLogin)
	if !ok || req.URL.Scheme != "https" || !sameHost(req.URL, hl.origin) {
		return t.next.RoundTrip(req)
	}
	authed := req.Clone(req.Context())
	authed.SetBasicAuth(hl.login.Username, hl.login.Password)
	return t.next.RoundTrip(authed)
}
