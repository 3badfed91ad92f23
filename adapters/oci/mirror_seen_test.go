package oci_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/ports"
)

// countManifestPuts counts the manifest pushes a registry receives.
func countManifestPuts(n *atomic.Int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/manifests/") {
				n.Add(1)
			}
			next.ServeHTTP(w, r)
		})
	}
}

func TestMirrorChart_ASeenVersionKeepsItsArchiveAndUpstream(t *testing.T) {
	t.Parallel()
	const (
		repoURL = "https://charts.jetstack.io"
		name    = "cert-manager"
		version = "v1.17.2"
	)
	chart := func(repo string) ports.UpstreamChart {
		return ports.UpstreamChart{Chart: ports.ChartSource{Repository: repo, Name: name, Version: version}}
	}
	first := func(t *testing.T) []byte { return chartArchive(t, name, version, "first") }
	tests := []struct {
		name string
		// later publishes the chart as the upstream serves it later and
		// returns the chart to mirror and the texts the refusal names (none:
		// the earlier mirror is reused).
		later func(t *testing.T, up *upstream) (ports.UpstreamChart, []string)
	}{
		{
			name: "the same archive from the same upstream is reused without a push",
			later: func(t *testing.T, up *upstream) (ports.UpstreamChart, []string) {
				up.addHTTPChart(repoURL, name, version, first(t), "")
				return chart(repoURL), nil
			},
		},
		{
			name: "a changed archive for the seen version is refused",
			later: func(t *testing.T, up *upstream) (ports.UpstreamChart, []string) {
				republished := chartArchive(t, name, version, "republished")
				up.addHTTPChart(repoURL, name, version, republished, "")
				return chart(repoURL), []string{"sha256:" + hexDigest(first(t)), "sha256:" + hexDigest(republished)}
			},
		},
		{
			name: "another Helm repository for the same tag is refused",
			later: func(t *testing.T, up *upstream) (ports.UpstreamChart, []string) {
				up.addHTTPChart("https://mirror.example.com/jetstack", name, version, first(t), "")
				return chart("https://mirror.example.com/jetstack"), []string{repoURL + "/" + name, "https://mirror.example.com/jetstack/" + name}
			},
		},
		{
			name: "an oci:// upstream for the same tag is refused",
			later: func(t *testing.T, up *upstream) (ports.UpstreamChart, []string) {
				up.addOCIChart(t, "ghcr.io/jetstack", name, version, first(t))
				return chart("oci://ghcr.io/jetstack"), []string{repoURL + "/" + name, "oci://ghcr.io/jetstack/" + name}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			var puts atomic.Int64
			host := serveRegistry(t, countManifestPuts(&puts))
			before, up := newRegistryAt(t, host)
			up.addHTTPChart(repoURL, name, version, first(t), "")
			seen, err := before.MirrorChart(ctx, chart(repoURL))
			require.NoError(t, err)
			pushed := puts.Load()

			after, laterUp := newRegistryAt(t, host)
			src, refusal := tt.later(t, laterUp)
			pc, err := after.MirrorChart(ctx, src)

			assert.Equal(t, pushed, puts.Load(), "nothing is pushed a second time")
			tagged, rerr := after.Resolve(ctx, seen.Repository+":"+version)
			require.NoError(t, rerr)
			assert.Equal(t, seen.ManifestDigest, tagged, "the tag never moves")
			if refusal == nil {
				require.NoError(t, err)
				assert.Equal(t, seen, pc)
				return
			}
			require.ErrorIs(t, err, ports.ErrArchiveRejected)
			for _, s := range refusal {
				assert.Contains(t, err.Error(), s)
			}
		})
	}
}

func TestMirrorChart_ATagTheMirrorDidNotWriteIsRefused(t *testing.T) {
	t.Parallel()
	const (
		repoURL = "https://charts.jetstack.io"
		name    = "cert-manager"
		version = "v1.17.2"
	)
	tests := []struct {
		name string
		// held is the archive and annotations a tag holds before the mirror runs.
		held func(t *testing.T, good []byte) ([]byte, map[string]string)
	}{
		{
			name: "no upstream annotations",
			held: func(_ *testing.T, good []byte) ([]byte, map[string]string) { return good, nil },
		},
		{
			name: "annotations of the upstream archive over another chart layer",
			held: func(t *testing.T, good []byte) ([]byte, map[string]string) {
				return chartArchive(t, name, version, "forged"), map[string]string{
					oci.AnnotationUpstreamSource: repoURL + "/" + name, oci.AnnotationUpstreamArchiveDigest: "sha256:" + hexDigest(good),
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			host := serveRegistry(t, nil)
			reg, up := newRegistryAt(t, host)
			good := chartArchive(t, name, version, "good")
			up.addHTTPChart(repoURL, name, version, good, "")
			archive, ann := tt.held(t, good)
			pushOCIChart(t, ociRepo(t, reg.Base()+"/charts/"+name, http.DefaultClient, true), name, version, archive, ann)
			forged, err := reg.Resolve(ctx, reg.Base()+"/charts/"+name+":"+version)
			require.NoError(t, err)

			_, err = reg.MirrorChart(ctx, ports.UpstreamChart{Chart: ports.ChartSource{Repository: repoURL, Name: name, Version: version}})
			require.ErrorIs(t, err, ports.ErrArchiveRejected)
			tagged, err := reg.Resolve(ctx, reg.Base()+"/charts/"+name+":"+version)
			require.NoError(t, err)
			assert.Equal(t, forged, tagged, "the mirror never overwrites a tag")
		})
	}
}
