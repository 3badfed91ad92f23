package oci

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/ports"
)

// Helm's OCI media types.
const (
	// HelmConfigMediaType is the media type of a Helm chart's config (Chart.yaml as JSON).
	HelmConfigMediaType = "application/vnd.cncf.helm.config.v1+json"
	// HelmChartMediaType is the media type of a Helm chart archive layer.
	HelmChartMediaType = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"
)

var errChartInvalid = errors.New("invalid chart")

// chartMeta is the part of Chart.yaml the adapter needs.
type chartMeta struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// chartConfig converts Chart.yaml to Helm's OCI config JSON.
func chartConfig(chartYAML []byte) (chartMeta, []byte, error) {
	var meta chartMeta
	if err := yaml.Unmarshal(chartYAML, &meta); err != nil {
		return meta, nil, fmt.Errorf("parse Chart.yaml: %w: %w", errChartInvalid, err)
	}
	if meta.Name == "" || meta.Version == "" {
		return meta, nil, fmt.Errorf("parse Chart.yaml: %w: name and version are required", errChartInvalid)
	}
	cfg, err := yaml.YAMLToJSON(chartYAML)
	if err != nil {
		return meta, nil, fmt.Errorf("convert Chart.yaml: %w: %w", errChartInvalid, err)
	}
	return meta, cfg, nil
}

// chartYAMLFromArchive returns <chart>/Chart.yaml of a chart archive.
func chartYAMLFromArchive(archive []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		return nil, fmt.Errorf("open chart archive: %w: %w", errChartInvalid, err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("find Chart.yaml: %w", errChartInvalid)
		}
		if err != nil {
			return nil, fmt.Errorf("read chart archive: %w: %w", errChartInvalid, err)
		}
		parts := strings.Split(strings.TrimPrefix(h.Name, "./"), "/")
		if len(parts) == 2 && parts[1] == "Chart.yaml" {
			return io.ReadAll(io.LimitReader(tr, 1<<20))
		}
	}
}

// packageChart builds a reproducible chart archive of the folder chart:
// entries under <name>/, sorted, zero times, modes 0644/0755.
func packageChart(chart fs.FS, name string) ([]byte, error) {
	var files []string
	err := fs.WalkDir(chart, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("walk chart %s: %w", name, err)
	}
	sort.Strings(files)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, p := range files {
		data, err := fs.ReadFile(chart, p)
		if err != nil {
			return nil, fmt.Errorf("read chart file %s: %w", p, err)
		}
		h := &tar.Header{Name: path.Join(name, p), Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("write chart archive: %w", err)
		}
		if _, err := tw.Write(data); err != nil {
			return nil, fmt.Errorf("write chart archive: %w", err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("close chart archive: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("close chart archive: %w", err)
	}
	return buf.Bytes(), nil
}

// pushChart pushes a chart archive with its config to <registry>/<dir>/<name>:<version>.
func (r *Registry) pushChart(ctx context.Context, dir string, archive []byte, ann map[string]string) (ports.PinnedChart, error) {
	chartYAML, err := chartYAMLFromArchive(archive)
	if err != nil {
		return ports.PinnedChart{}, err
	}
	meta, cfg, err := chartConfig(chartYAML)
	if err != nil {
		return ports.PinnedChart{}, err
	}
	repoRef := r.repoRef(dir + "/" + meta.Name)
	repo, err := r.repository(repoRef, true)
	if err != nil {
		return ports.PinnedChart{}, err
	}
	layer := newBlob(HelmChartMediaType, archive, nil)
	a := artifact{config: newBlob(HelmConfigMediaType, cfg, nil), layers: []blob{layer}, annotations: ann}
	desc, err := a.push(ctx, repo, tagOf(meta.Version))
	if err != nil {
		return ports.PinnedChart{}, err
	}
	return ports.PinnedChart{
		Repository: repoRef, Name: meta.Name, Version: meta.Version,
		ManifestDigest: ports.Digest(desc.Digest), ArchiveDigest: ports.Digest(layer.desc.Digest),
	}, nil
}

// tagOf turns a chart version into an OCI tag the way Helm does (+ becomes _).
func tagOf(version string) string { return strings.ReplaceAll(version, "+", "_") }

// PushWrapper packages the bundle-local chart folder and pushes it to
// <registry>/wrappers/<name>:<version>.
func (r *Registry) PushWrapper(ctx context.Context, chart fs.FS) (ports.PinnedChart, error) {
	chartYAML, err := fs.ReadFile(chart, "Chart.yaml")
	if err != nil {
		return ports.PinnedChart{}, fmt.Errorf("read Chart.yaml: %w: %w", errChartInvalid, err)
	}
	meta, _, err := chartConfig(chartYAML)
	if err != nil {
		return ports.PinnedChart{}, err
	}
	archive, err := packageChart(chart, meta.Name)
	if err != nil {
		return ports.PinnedChart{}, err
	}
	return r.pushChart(ctx, WrappersPath, archive, nil)
}
