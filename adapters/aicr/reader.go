package aicr

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"

	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/ports"
)

const (
	bundleInfoFile = "bundle-info.yaml"
	recipeFile     = "recipe.yaml"
	apiVersionV1   = "aicr.run/v1"
	kindBundleInfo = "BundleInfo"
	maxReleases    = 999
)

var (
	// ErrInvalidBundle reports a bundle that does not follow the AICR v1.x
	// helm layout; the wrapped message says which rule it breaks.
	ErrInvalidBundle = errors.New("invalid aicr bundle")

	releasePath = regexp.MustCompile(`^[0-9]{3}-([a-z0-9]([-a-z0-9]*[a-z0-9])?)$`)
	dnsLabel    = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
)

// Reader is the ports.BundleReader of AICR v1.x helm bundles.
type Reader struct{}

var _ ports.BundleReader = Reader{}

// ReadBundle reads the bundle rooted at fsys (the package function ReadBundle).
func (Reader) ReadBundle(fsys fs.FS) (ports.Bundle, error) { return ReadBundle(fsys) }

// ReadDir reads the bundle in directory dir on disk.
func ReadDir(dir string) (ports.Bundle, error) {
	return ReadBundle(os.DirFS(dir))
}

// ReadBundle reads an AICR helm bundle from fsys (rooted at the bundle
// directory). A v1.x bundle yields its releases in deployment order; a bundle
// without bundle-info.yaml but with a recipe.yaml is reported as
// ports.LayoutLegacyV0 with the AICR version its recipe records and no
// releases, so the caller can refuse it. Every other problem is an error
// wrapping ErrInvalidBundle (or an fs error).
func ReadBundle(fsys fs.FS) (ports.Bundle, error) {
	root, err := listFolder(fsys, ".")
	if err != nil {
		return ports.Bundle{}, invalid("%w", err)
	}
	if _, ok := root[bundleInfoFile]; !ok {
		return readLegacy(fsys, root)
	}
	data, err := readLimited(fsys, bundleInfoFile, maxSmallBytes)
	if err != nil {
		return ports.Bundle{}, invalid("%w", err)
	}
	var info bundleInfo
	if err = yaml.UnmarshalStrict(data, &info); err != nil {
		return ports.Bundle{}, invalid("%s: %w", bundleInfoFile, err)
	}
	if err = checkInfo(info); err != nil {
		return ports.Bundle{}, err
	}
	deps, err := readRecipeDeps(fsys, root, info.Build.Recipe.Path)
	if err != nil {
		return ports.Bundle{}, err
	}
	b := ports.Bundle{
		Layout:       ports.LayoutV1,
		AICRVersion:  info.Metadata.Version,
		Deployer:     info.Build.Deployer,
		RecipeDigest: info.Build.Recipe.Digest,
	}
	seen := map[string]bool{}
	for i, r := range info.Layout.Releases {
		rel, err := readRelease(fsys, root, r)
		if err != nil {
			return ports.Bundle{}, err
		}
		key := rel.Namespace + "/" + rel.Name
		if seen[key] {
			return ports.Bundle{}, invalid("release %s listed twice", key)
		}
		seen[key] = true
		rel.Order = i + 1
		rel.DependsOnComponents = deps[rel.Component]
		b.Releases = append(b.Releases, rel)
	}
	return b, nil
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %w", ErrInvalidBundle, fmt.Errorf(format, args...))
}

func checkInfo(info bundleInfo) error {
	switch {
	case info.APIVersion != apiVersionV1:
		return invalid("%s: unsupported apiVersion %q", bundleInfoFile, info.APIVersion)
	case info.Kind != kindBundleInfo:
		return invalid("%s: unexpected kind %q", bundleInfoFile, info.Kind)
	case info.Build.Deployer != "helm" && info.Build.Deployer != "helmfile":
		return invalid("%s: unsupported deployer %q", bundleInfoFile, info.Build.Deployer)
	case info.Metadata.Version == "":
		return invalid("%s: metadata.version is empty", bundleInfoFile)
	case len(info.Layout.Releases) == 0:
		return invalid("%s: layout.releases is empty", bundleInfoFile)
	case len(info.Layout.Releases) > maxReleases:
		return invalid("%s: more than %d releases", bundleInfoFile, maxReleases)
	}
	return nil
}

// readRecipeDeps returns each component's dependencyRefs from the bundle's
// recipe (FORMAT.md section 4.4). A bundle without a recipe has no edges.
func readRecipeDeps(fsys fs.FS, root map[string]fs.DirEntry, name string) (map[string][]string, error) {
	if name == "" {
		name = recipeFile
	}
	if _, ok := root[name]; !ok || !fs.ValidPath(name) || path.Dir(name) != "." {
		if name != recipeFile {
			return nil, invalid("recipe path %q is not a file of the bundle root", name)
		}
		return map[string][]string{}, nil
	}
	data, err := readLimited(fsys, name, maxValuesBytes)
	if err != nil {
		return nil, invalid("%w", err)
	}
	var rd recipeDeps
	if err := yaml.Unmarshal(data, &rd); err != nil {
		return nil, invalid("%s: %w", name, err)
	}
	deps := make(map[string][]string, len(rd.ComponentRefs))
	for _, c := range rd.ComponentRefs {
		deps[c.Name] = c.DependencyRefs
	}
	return deps, nil
}

// readLegacy reports a v0.x bundle: no bundle-info.yaml, a recipe.yaml whose
// metadata.version is the AICR version that rendered it.
func readLegacy(fsys fs.FS, root map[string]fs.DirEntry) (ports.Bundle, error) {
	if _, ok := root[recipeFile]; !ok {
		return ports.Bundle{}, invalid("neither %s nor %s found", bundleInfoFile, recipeFile)
	}
	for name := range root {
		if releasePath.MatchString(name) {
			return ports.Bundle{}, invalid("%s missing in a bundle with release folders", bundleInfoFile)
		}
	}
	data, err := readLimited(fsys, recipeFile, maxValuesBytes)
	if err != nil {
		return ports.Bundle{}, invalid("%w", err)
	}
	var rd recipeDeps
	if err := yaml.Unmarshal(data, &rd); err != nil {
		return ports.Bundle{}, invalid("%s: %w", recipeFile, err)
	}
	return ports.Bundle{Layout: ports.LayoutLegacyV0, AICRVersion: rd.Metadata.Version, Deployer: "helm"}, nil
}
