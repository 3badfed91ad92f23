package aicr

import (
	"io/fs"
	"path"

	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/ports"
)

// chartYAML is the part of a local chart's Chart.yaml the reader records.
type chartYAML struct {
	Name         string            `json:"name"`
	Version      string            `json:"version"`
	Annotations  map[string]string `json:"annotations"`
	Dependencies []struct {
		Name string `json:"name"`
	} `json:"dependencies"`
}

const (
	valuesFile        = "values.yaml"
	clusterValuesFile = "cluster-values.yaml"
	installFile       = "install.sh"
	chartFile         = "Chart.yaml"
	upstreamEnvFile   = "upstream.env"
)

// readRelease reads one NNN-<release> folder (FORMAT.md section 5 steps 2-5).
func readRelease(fsys fs.FS, root map[string]fs.DirEntry, r infoRelease) (ports.BundleRelease, error) {
	m := releasePath.FindStringSubmatch(r.Path)
	switch {
	case m == nil:
		return ports.BundleRelease{}, invalid("release %q: path %q is not NNN-<name>", r.Name, r.Path)
	case m[1] != r.Name:
		return ports.BundleRelease{}, invalid("release %q: path %q names another release", r.Name, r.Path)
	case !dnsLabel.MatchString(r.Namespace):
		return ports.BundleRelease{}, invalid("release %q: invalid namespace %q", r.Name, r.Namespace)
	case r.Component == "":
		return ports.BundleRelease{}, invalid("release %q: component is empty", r.Name)
	}
	entry, ok := root[r.Path]
	if !ok || !entry.IsDir() {
		return ports.BundleRelease{}, invalid("release %q: folder %s missing", r.Name, r.Path)
	}
	files, err := listFolder(fsys, r.Path)
	if err != nil {
		return ports.BundleRelease{}, invalid("%w", err)
	}
	for _, f := range []string{valuesFile, clusterValuesFile, installFile} {
		if e, ok := files[f]; !ok || !e.Type().IsRegular() {
			return ports.BundleRelease{}, invalid("release %q: %s missing", r.Name, f)
		}
	}
	script, err := readLimited(fsys, path.Join(r.Path, installFile), maxSmallBytes)
	if err != nil {
		return ports.BundleRelease{}, invalid("%w", err)
	}
	ns, create := installNamespace(string(script))
	if ns != r.Namespace {
		return ports.BundleRelease{}, invalid("release %q: namespace %q in %s, %q in %s",
			r.Name, r.Namespace, bundleInfoFile, ns, installFile)
	}
	vals, err := mergeValues(fsys, path.Join(r.Path, valuesFile), path.Join(r.Path, clusterValuesFile))
	if err != nil {
		return ports.BundleRelease{}, invalid("release %q: %w", r.Name, err)
	}
	rel := ports.BundleRelease{
		Name: r.Name, Component: r.Component, Namespace: r.Namespace, Path: r.Path,
		Values: vals, CreateNamespace: create,
	}
	if _, local := files[chartFile]; local {
		err = readLocalChart(fsys, r.Path, &rel)
	} else {
		err = readUpstreamChart(fsys, r.Path, files, &rel)
	}
	if err != nil {
		return ports.BundleRelease{}, err
	}
	return rel, nil
}

func readLocalChart(fsys fs.FS, dir string, rel *ports.BundleRelease) error {
	data, err := readLimited(fsys, path.Join(dir, chartFile), maxSmallBytes)
	if err != nil {
		return invalid("%w", err)
	}
	var ch chartYAML
	if err = yaml.Unmarshal(data, &ch); err != nil {
		return invalid("%s: %w", path.Join(dir, chartFile), err)
	}
	if ch.Name == "" || ch.Version == "" {
		return invalid("%s: name and version are required", path.Join(dir, chartFile))
	}
	digest, err := treeDigest(fsys, dir, map[string]bool{
		valuesFile: true, clusterValuesFile: true, installFile: true, chartFile: true,
	})
	if err != nil {
		return invalid("%w", err)
	}
	rel.Kind = ports.KindLocal
	rel.Chart = ports.ChartSource{Name: ch.Name, Version: ch.Version}
	rel.PayloadVersion = ch.Annotations["aicr.run/component-version"]
	rel.ContentDigest = digest
	return nil
}

func readUpstreamChart(fsys fs.FS, dir string, files map[string]fs.DirEntry, rel *ports.BundleRelease) error {
	if e, ok := files[upstreamEnvFile]; !ok || !e.Type().IsRegular() {
		return invalid("release %q: %s missing", rel.Name, upstreamEnvFile)
	}
	data, err := readLimited(fsys, path.Join(dir, upstreamEnvFile), maxSmallBytes)
	if err != nil {
		return invalid("%w", err)
	}
	env, err := parseUpstreamEnv(string(data))
	if err != nil {
		return invalid("release %q: %w", rel.Name, err)
	}
	src, err := chartSource(env)
	if err != nil {
		return invalid("release %q: %w", rel.Name, err)
	}
	rel.Kind = ports.KindUpstream
	rel.Chart = src
	return nil
}
