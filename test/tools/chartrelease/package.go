package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
)

// release loads the chart in chartDir, sets its version and appVersion and the values at the
// dot-separated paths of digests in values.yaml, and writes the archive into out.
func release(chartDir, out, version string, digests map[string]string) (string, error) {
	ch, err := loader.LoadDir(chartDir)
	if err != nil {
		return "", fmt.Errorf("load chart: %w", err)
	}
	values := rawFile(ch, chartutil.ValuesfileName)
	if values == nil {
		return "", fmt.Errorf("chart %s has no %s", chartDir, chartutil.ValuesfileName)
	}
	for path, digest := range digests {
		if values.Data, err = setScalar(values.Data, strings.Split(path, "."), digest); err != nil {
			return "", fmt.Errorf("%s: %w", chartutil.ValuesfileName, err)
		}
	}
	// Helm writes Chart.yaml from the metadata and values.yaml from the raw file.
	ch.Metadata.Version, ch.Metadata.AppVersion = version, version
	if ch.Values, err = chartutil.ReadValues(values.Data); err != nil {
		return "", fmt.Errorf("read edited values: %w", err)
	}
	if err = ch.Validate(); err != nil {
		return "", fmt.Errorf("chart: %w", err)
	}
	if err = os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	path, err := chartutil.Save(ch, out)
	if err != nil {
		return "", fmt.Errorf("package chart: %w", err)
	}
	return filepath.Clean(path), nil
}

// rawFile returns the chart's top-level file of that name as loaded, or nil.
func rawFile(ch *chart.Chart, name string) *chart.File {
	for _, f := range ch.Raw {
		if f.Name == name {
			return f
		}
	}
	return nil
}
