package oci

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/NVIDIA/aicr/adapters/kube/wellknown"
	"github.com/NVIDIA/aicr/ports"
)

// Mirror limits and annotations.
const (
	// MaxChartArchiveBytes bounds an upstream chart archive.
	MaxChartArchiveBytes = 64 << 20
	// maxIndexBytes bounds an upstream Helm repository index.
	maxIndexBytes = 64 << 20
	// AnnotationUpstreamSource records where a mirrored chart came from.
	AnnotationUpstreamSource = "org.opencontainers.image.source"
	// AnnotationUpstreamArchiveDigest records the verified upstream archive digest.
	AnnotationUpstreamArchiveDigest = wellknown.Prefix + "upstream-archive-digest"
)

// MirrorChart serves an upstream chart from the runtime registry. A chart the
// operator recorded (chart.RecordedManifestDigest) whose tag still names that
// manifest is returned without contacting the upstream (see recorded).
// Otherwise it fetches the chart from its upstream (https:// Helm repository or oci://
// parent), verifies its archive against the digest the upstream announces (the
// index digest or the manifest's layer descriptor) and against
// chart.ExpectedArchiveDigest when set, then pushes the unchanged archive to
// <registry>/charts/<name>:<version>, unless that tag already holds it (see
// held). A mismatch, a tag holding another archive or source, or an upstream
// URL off https or off the repository's host wraps ports.ErrArchiveRejected,
// and nothing is pushed.
func (r *Registry) MirrorChart(ctx context.Context, chart ports.UpstreamChart) (ports.PinnedChart, error) {
	src := chart.Chart
	what := "mirror chart " + src.Name + ":" + src.Version
	source := strings.TrimSuffix(src.Repository, "/") + "/" + src.Name
	switch pc, ok, err := r.recorded(ctx, chart, source); {
	case err != nil:
		return ports.PinnedChart{}, fmt.Errorf("%s: %w", what, err)
	case ok:
		return pc, nil
	}
	archive, announced, err := r.fetchChart(ctx, src)
	if err != nil {
		return ports.PinnedChart{}, fmt.Errorf("%s: %w", what, err)
	}
	got := "sha256:" + hexSHA256(archive)
	for _, want := range []string{announced, string(chart.ExpectedArchiveDigest)} {
		if want != "" && want != got {
			return ports.PinnedChart{}, fmt.Errorf("%s: archive digest %s, expected %s: %w", what, got, want, ports.ErrArchiveRejected)
		}
	}
	if announced == "" && chart.ExpectedArchiveDigest == "" {
		return ports.PinnedChart{}, fmt.Errorf("%s: no digest to verify the archive against: %w", what, ports.ErrArchiveRejected)
	}
	chartYAML, err := chartYAMLFromArchive(archive)
	if err != nil {
		return ports.PinnedChart{}, fmt.Errorf("%s: %w: %w", what, ports.ErrArchiveRejected, err)
	}
	meta, _, err := chartConfig(chartYAML)
	if err != nil || meta.Name != src.Name || meta.Version != src.Version {
		return ports.PinnedChart{}, fmt.Errorf("%s: archive holds chart %s:%s: %w", what, meta.Name, meta.Version, ports.ErrArchiveRejected)
	}
	pc, ok, err := r.held(ctx, src, source, got)
	if err != nil {
		return ports.PinnedChart{}, fmt.Errorf("%s: %w", what, err)
	}
	if ok {
		return pc, nil
	}
	return r.pushChart(ctx, ChartsPath, archive, map[string]string{
		AnnotationUpstreamSource: source, AnnotationUpstreamArchiveDigest: got,
	})
}

// fetchChart fetches the archive of src from its upstream, with the login of the Secret
// configured for the chart's source URL (the Helm repository, or the OCI repository
// <parent>/<name>) or anonymously, and returns it with the digest the upstream announces. An
// upstream's 401 or 403 says which Secret it refused, or that it needs one.
func (r *Registry) fetchChart(ctx context.Context, src ports.ChartSource) ([]byte, string, error) {
	var fetch func(context.Context, ports.ChartSource, upstreamLogin) ([]byte, string, error)
	source := src.Repository
	switch {
	case strings.HasPrefix(src.Repository, "oci://"):
		fetch, source = r.fetchOCIChart, strings.TrimSuffix(src.Repository, "/")+"/"+src.Name
	case strings.HasPrefix(src.Repository, "https://"):
		fetch = r.fetchHTTPChart
	default:
		return nil, "", fmt.Errorf("repository %q is neither https:// nor oci://: %w", src.Repository, ports.ErrArchiveRejected)
	}
	login, err := r.upstreamLoginFor(ctx, source)
	if err != nil {
		return nil, "", err
	}
	archive, announced, err := fetch(ctx, src, login)
	return archive, announced, login.explain(err)
}

func hexSHA256(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// fetchOCIChart fetches the chart layer of <repository>/<name>:<version> with
// login; the layer descriptor's digest is the announced digest.
func (r *Registry) fetchOCIChart(ctx context.Context, src ports.ChartSource, login upstreamLogin) ([]byte, string, error) {
	repo, err := r.upstreamRepository(strings.TrimSuffix(src.Repository, "/")+"/"+src.Name, login)
	if err != nil {
		return nil, "", err
	}
	_, m, err := fetchManifest(ctx, repo, tagOf(src.Version))
	if err != nil {
		return nil, "", err
	}
	for _, l := range m.Layers {
		if l.MediaType != HelmChartMediaType {
			continue
		}
		if l.Size > MaxChartArchiveBytes {
			return nil, "", fmt.Errorf("chart layer of %d bytes: %w", l.Size, ports.ErrArchiveRejected)
		}
		// Read without verification so a tampered blob is reported as a
		// digest mismatch (ErrArchiveRejected), not as a transient error.
		rc, err := repo.Blobs().Fetch(ctx, l)
		if err != nil {
			return nil, "", mapErr("fetch chart layer", err)
		}
		defer func() { _ = rc.Close() }()
		data, err := io.ReadAll(io.LimitReader(rc, MaxChartArchiveBytes+1))
		if err != nil {
			return nil, "", fmt.Errorf("read chart layer: %w", err)
		}
		return data, string(l.Digest), nil
	}
	return nil, "", fmt.Errorf("find chart layer: %w", ports.ErrArtifactNotFound)
}

// fetchHTTPChart reads the repository index, finds the version and downloads
// its archive; the index digest is the announced digest. The archive URL
// (relative ones resolve against the index URL) must be https on the
// repository's host, so an index never steers a request elsewhere. Both
// requests carry login, as basic auth to the repository's host only.
func (r *Registry) fetchHTTPChart(ctx context.Context, src ports.ChartSource, login upstreamLogin) ([]byte, string, error) {
	base, err := url.Parse(strings.TrimSuffix(src.Repository, "/") + "/")
	if err != nil || base.Scheme != "https" || base.Host == "" {
		return nil, "", fmt.Errorf("parse repository %q: %w", src.Repository, ports.ErrArchiveRejected)
	}
	ctx = withHelmLogin(ctx, base, login)
	index := base.JoinPath("index.yaml")
	body, err := r.open(ctx, index.String())
	if err != nil {
		return nil, "", err
	}
	entries, err := readIndexEntries(body, src.Name)
	_ = body.Close()
	if err != nil {
		return nil, "", fmt.Errorf("read index of %s: %w", src.Repository, err)
	}
	for _, e := range entries {
		if e.Version != src.Version || len(e.URLs) == 0 {
			continue
		}
		u, err := index.Parse(e.URLs[0])
		if err != nil || u.Scheme != "https" || !sameHost(u, index) {
			return nil, "", fmt.Errorf("chart url %q in the index of %s is not https on %s: %w",
				e.URLs[0], src.Repository, index.Host, ports.ErrArchiveRejected)
		}
		archive, err := r.get(ctx, u.String(), MaxChartArchiveBytes)
		if err != nil {
			return nil, "", err
		}
		announced := ""
		if e.Digest != "" {
			announced = "sha256:" + strings.TrimPrefix(e.Digest, "sha256:")
		}
		return archive, announced, nil
	}
	return nil, "", fmt.Errorf("find %s %s in index of %s: %w", src.Name, src.Version, src.Repository, ports.ErrArtifactNotFound)
}

// get downloads u (at most limit bytes) with the retrying Helm client:
// https only, redirects only on u's host.
func (r *Registry) get(ctx context.Context, u string, limit int64) ([]byte, error) {
	body, err := r.open(ctx, u)
	if err != nil {
		return nil, err
	}
	defer func() { _ = body.Close() }()
	data, err := io.ReadAll(io.LimitReader(body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", u, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("get %s: more than %d bytes: %w", u, limit, ports.ErrArchiveRejected)
	}
	return data, nil
}

// open requests u with the retrying Helm client and returns the body of a 200 response;
// the caller closes it.
func (r *Registry) open(ctx context.Context, u string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("build request %s: %w", u, err)
	}
	resp, err := r.helm.Do(req)
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", u, err)
	}
	if resp.StatusCode == http.StatusOK {
		return resp.Body, nil
	}
	_ = resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusNotFound:
		return nil, fmt.Errorf("get %s: %w", u, ports.ErrArtifactNotFound)
	case http.StatusUnauthorized, http.StatusForbidden:
		return nil, fmt.Errorf("get %s: %w", u, ports.ErrUnauthorized)
	default:
		return nil, fmt.Errorf("get %s: status %d", u, resp.StatusCode)
	}
}
