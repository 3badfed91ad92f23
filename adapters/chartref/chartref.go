// Package chartref maps a plan's releases to the chart sources a deployment
// engine must use: the runtime registry's copy of each chart, pinned by
// manifest digest (PLAN-3, REG-1). Upstream charts come from
// <registry>/charts/<name>, bundle-local charts from <registry>/wrappers/<name>.
// It imports only the standard library and ports, so an engine adapter can
// use it without the OCI client.
package chartref

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/NVIDIA/aicr/ports"
)

// Repository folders of the runtime registry.
const (
	// ChartsDir holds mirrored upstream charts.
	ChartsDir = "charts"
	// WrappersDir holds bundle-local (wrapper) charts.
	WrappersDir = "wrappers"
)

// ErrUnpinned reports a release whose chart has no manifest digest yet, or
// whose chart name cannot be an OCI repository name.
var ErrUnpinned = errors.New("chart not pinned in the runtime registry")

var (
	digestRe = regexp.MustCompile(`^sha256:[a-f0-9]{64}$`)
	nameRe   = regexp.MustCompile(`^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$`)
)

// Source is where an engine pulls one release's chart from.
type Source struct {
	// ReleaseID is the release the source belongs to.
	ReleaseID string
	// RepoURL is the native OCI source URL, oci://<registry>/<dir>/<name>
	// (Argo CD 3.1+: source.repoURL, with TargetRevision and path ".").
	RepoURL string
	// Repository is the same repository without scheme (<registry>/<dir>/<name>).
	Repository string
	// Chart is the chart name.
	Chart string
	// Version is the chart version the digest was pinned from.
	Version string
	// TargetRevision is the manifest digest (sha256:...).
	TargetRevision string
}

// Base returns the registry prefix without scheme or trailing slash.
func Base(registry string) string {
	return strings.TrimSuffix(strings.TrimPrefix(registry, "oci://"), "/")
}

// For returns the pinned source of one release: an upstream chart (non-empty
// Chart.Repository) from <registry>/charts/<name>, a local chart from
// <registry>/wrappers/<name>, both at Chart.ManifestDigest. It returns an
// error wrapping ErrUnpinned when the digest is missing or malformed.
func For(registry string, spec ports.ReleaseSpec) (Source, error) {
	c := spec.Chart
	if !digestRe.MatchString(c.ManifestDigest) {
		return Source{}, fmt.Errorf("release %s: manifest digest %q: %w", spec.Ref, c.ManifestDigest, ErrUnpinned)
	}
	if !nameRe.MatchString(c.Name) {
		return Source{}, fmt.Errorf("release %s: chart name %q: %w", spec.Ref, c.Name, ErrUnpinned)
	}
	dir := ChartsDir
	if c.Repository == "" {
		dir = WrappersDir
	}
	repo := Base(registry) + "/" + dir + "/" + c.Name
	return Source{
		ReleaseID: spec.Ref.ID, RepoURL: "oci://" + repo, Repository: repo,
		Chart: c.Name, Version: c.Version, TargetRevision: c.ManifestDigest,
	}, nil
}
