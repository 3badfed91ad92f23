package aicrcontract_test

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/adapters/aicr"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// simulatedBundles are the v1 bundles the simulator plays (test/testdata/aicr, every bundle
// directory holding a bundle-info.yaml), each as the files of the bundle it pushes.
func simulatedBundles(t *testing.T) map[string]map[string][]byte {
	t.Helper()
	root := filepath.Join(jobexec.Root(), "test", "testdata", "aicr")
	dirs, err := filepath.Glob(filepath.Join(root, "*", "bundle-helm"))
	require.NoError(t, err)
	nested, err := filepath.Glob(filepath.Join(root, "*", "*", "bundle-helm"))
	require.NoError(t, err)
	out := map[string]map[string][]byte{}
	for _, d := range append(dirs, nested...) {
		if _, err := os.Stat(filepath.Join(d, "bundle-info.yaml")); err != nil {
			continue
		}
		rel, err := filepath.Rel(root, d)
		require.NoError(t, err)
		f, err := jobexec.BundleFixture("v1.1.0", rel, nil)
		require.NoError(t, err)
		out[d], err = f.BundleFiles()
		require.NoError(t, err)
	}
	require.NotEmpty(t, out, "the simulator plays no v1 bundle")
	return out
}

// readBundle reads files with the operator's bundle reader.
func readBundle(files map[string][]byte) (ports.Bundle, error) {
	fsys := fstest.MapFS{}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	return aicr.ReadBundle(fsys)
}

// copyFiles is a copy of files a case may change.
func copyFiles(files map[string][]byte) map[string][]byte {
	out := make(map[string][]byte, len(files))
	for k, v := range files {
		out[k] = slices.Clone(v)
	}
	return out
}

// 2.2: a RecipeResult is kind RecipeResult of aicr.run/v1 (v1beta2 when profiled) recording the
// binary that resolved it, its criteria, its componentRefs and deploymentOrder. Every AICR
// recipe has that shape, the recipe the simulator plays uses only AICR's fields, names every
// component in deploymentOrder, and the operator's bundle reader reads a bundle holding it.
func TestFact2_2_RecipeResult(t *testing.T) {
	t.Parallel()
	var tops, refs []map[string]any
	decode := func(name string, raw []byte) (map[string]any, []map[string]any) {
		var doc map[string]any
		require.NoError(t, yaml.Unmarshal(raw, &doc), name)
		assert.Equal(t, "RecipeResult", doc["kind"], name)
		assert.Contains(t, []any{"aicr.run/v1", "aicr.run/v1beta2"}, doc["apiVersion"], name)
		md, _ := doc["metadata"].(map[string]any)
		assert.NotEmpty(t, md["version"], "%s: the binary that resolved it", name)
		var components []map[string]any
		var names []any
		for _, c := range asList(doc["componentRefs"]) {
			ref, ok := c.(map[string]any)
			require.True(t, ok, name)
			components = append(components, ref)
			names = append(names, ref["name"])
		}
		require.NotEmpty(t, components, name)
		assert.ElementsMatch(t, names, asList(doc["deploymentOrder"]), "%s: deploymentOrder orders every component", name)
		return doc, components
	}
	for p, raw := range referenceRecipes(t) {
		doc, components := decode(p, raw)
		tops = append(tops, doc)
		refs = append(refs, components...)
	}
	topAny, _ := keySets(tops)
	refAny, _ := keySets(refs)
	for dir, files := range simulatedBundles(t) {
		doc, components := decode(dir, files["recipe.yaml"])
		for k := range doc {
			assert.True(t, topAny[k] || slices.Contains([]string{"constraints", "validation"}, k),
				"%s: recipe key %q", dir, k)
		}
		for _, c := range components {
			for k := range c {
				assert.True(t, refAny[k] || slices.Contains([]string{"dependencyRefs", "manifestFiles"}, k),
					"%s: componentRef key %q", dir, k)
			}
		}
		for p, raw := range referenceRecipes(t) {
			withRef := copyFiles(files)
			withRef["recipe.yaml"] = raw
			_, err := readBundle(withRef)
			assert.NoError(t, err, "%s with %s", dir, p)
		}
	}
}

// referenceBundleInfos returns AICR's bundle-info.yaml documents in the reference directory.
func referenceBundleInfos(t *testing.T) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, p := range referenceFiles(t, "bundle-info.yaml") {
		var doc map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(readString(t, p)), &doc), p)
		out[p] = doc
	}
	require.NotEmpty(t, out, "the reference holds no bundle-info.yaml")
	return out
}

// 2.3: bundle-info.yaml is aicr.run/v1 BundleInfo with metadata.version (the binary that ran
// bundle), build (deployer, recipe, settings) and layout, read strictly: another apiVersion or
// kind, or an unknown field, is refused. The operator's reader decodes every field of AICR's
// documented bundle-info (in a helm bundle: its deployer helm, its releases the bundle's own,
// which the excerpt does not hold) and reports the bundle's AICR and recipe digest from it;
// it refuses what AICR's reader refuses.
func TestFact2_3_BundleInfo(t *testing.T) {
	t.Parallel()
	files := fixtureFiles(t)
	var own map[string]any
	require.NoError(t, yaml.Unmarshal(files["bundle-info.yaml"], &own))
	for p, doc := range referenceBundleInfos(t) {
		build, _ := doc["build"].(map[string]any)
		layout, _ := doc["layout"].(map[string]any)
		require.NotNil(t, build, p)
		require.NotNil(t, layout, p)
		build["deployer"] = "helm"
		layout["entrypoint"] = "deploy.sh"
		layout["releases"] = own["layout"].(map[string]any)["releases"]
		raw, err := yaml.Marshal(doc)
		require.NoError(t, err)
		withInfo := copyFiles(files)
		withInfo["bundle-info.yaml"] = raw
		b, err := readBundle(withInfo)
		require.NoError(t, err, "%s: every field of AICR's bundle-info", p)
		assert.Equal(t, doc["metadata"].(map[string]any)["version"], b.AICRVersion, p)
		assert.Equal(t, build["recipe"].(map[string]any)["digest"], b.RecipeDigest, p)
		for what, edit := range map[string]func(map[string]any){
			"apiVersion":    func(d map[string]any) { d["apiVersion"] = "aicr.run/v2" },
			"kind":          func(d map[string]any) { d["kind"] = "Bundle" },
			"unknown field": func(d map[string]any) { d["build"].(map[string]any)["addedInV1_9"] = true },
		} {
			var changed map[string]any
			require.NoError(t, yaml.Unmarshal(raw, &changed))
			edit(changed)
			bad, err := yaml.Marshal(changed)
			require.NoError(t, err)
			withBad := copyFiles(files)
			withBad["bundle-info.yaml"] = bad
			_, err = readBundle(withBad)
			assert.ErrorIs(t, err, aicr.ErrInvalidBundle, "%s: %s", p, what)
		}
	}
}

// fixtureFiles are the files of the simulator's v1 bundle.
func fixtureFiles(t *testing.T) map[string][]byte {
	t.Helper()
	files, err := jobexec.ReadTree(filepath.Join(jobexec.Root(), "test", "testdata", "aicr",
		"v1-layout-synthetic-eks-h100-ubuntu-training-kubeflow", "bundle-helm"))
	require.NoError(t, err)
	return files
}

// 2.5: a generated (local) chart's Chart.yaml version is the AICR that ran bundle, appVersion
// the payload's version, annotated aicr.run/component-version and aicr.run/generated-by. Every
// local chart the simulator plays is so, and the operator's reader records its version and
// payload version from them.
func TestFact2_5_GeneratedChartVersions(t *testing.T) {
	t.Parallel()
	local := 0
	for dir, files := range simulatedBundles(t) {
		var info struct {
			Metadata struct {
				Version string `json:"version"`
			} `json:"metadata"`
		}
		require.NoError(t, yaml.Unmarshal(files["bundle-info.yaml"], &info))
		b, err := readBundle(files)
		require.NoError(t, err, dir)
		for _, r := range b.Releases {
			raw, ok := files[path.Join(r.Path, "Chart.yaml")]
			if !ok {
				continue
			}
			local++
			var chart struct {
				Version     string            `json:"version"`
				AppVersion  string            `json:"appVersion"`
				Annotations map[string]string `json:"annotations"`
			}
			require.NoError(t, yaml.Unmarshal(raw, &chart))
			assert.Equal(t, info.Metadata.Version, chart.Version, "%s %s", dir, r.Path)
			assert.Equal(t, chart.AppVersion, chart.Annotations["aicr.run/component-version"], "%s %s", dir, r.Path)
			assert.NotEmpty(t, chart.Annotations["aicr.run/generated-by"], "%s %s", dir, r.Path)
			assert.Equal(t, ports.KindLocal, r.Kind)
			assert.Equal(t, chart.Version, r.Chart.Version)
			assert.Equal(t, chart.Annotations["aicr.run/component-version"], r.PayloadVersion)
		}
	}
	assert.Positive(t, local, "the simulator plays a local chart")
}

// helmLayouts reads AICR's helm bundle file lists (manifests/helm.txt): the root files and the
// files of a release folder.
func helmLayouts(t *testing.T) (root, folder map[string]bool) {
	t.Helper()
	root, folder = map[string]bool{}, map[string]bool{}
	for _, p := range referenceFiles(t, filepath.Join("manifests", "helm.txt")) {
		for _, line := range strings.Fields(readString(t, p)) {
			if dir, file, nested := strings.Cut(line, "/"); nested && regexp.MustCompile(`^\d{3}-`).MatchString(dir) {
				folder[file] = true
			} else {
				root[line] = true
			}
		}
	}
	require.NotEmpty(t, root, "the reference holds no helm layout")
	return root, folder
}

// 10.1: a helm bundle's root is README.md, bundle-info.yaml, checksums.txt, deploy.sh and
// recipe.yaml, with UPGRADING.md only for a manual or blocked pin; each release folder holds
// values.yaml, cluster-values.yaml, install.sh and, for an upstream chart, upstream.env; there is
// no undeploy.sh. Every bundle the simulator plays keeps to that layout (its local charts add
// their Chart.yaml and templates; it has no deploy.sh), and the operator's reader reads the simulator's bundle with
// AICR's whole root, UPGRADING.md included.
func TestFact10_1_BundleRootLayout(t *testing.T) {
	t.Parallel()
	root, folder := helmLayouts(t)
	assert.False(t, root["undeploy.sh"])
	for dir, files := range simulatedBundles(t) {
		b, err := readBundle(files)
		require.NoError(t, err, dir)
		for name := range root {
			// The simulator's bundles are re-layouts of recorded renders without their deploy.sh,
			// which the operator never runs (it applies the releases itself).
			if name != "deploy.sh" {
				assert.Contains(t, files, name, "%s: root file", dir)
			}
		}
		folders := map[string]bool{}
		for _, r := range b.Releases {
			folders[r.Path] = true
			for _, f := range []string{"values.yaml", "cluster-values.yaml", "install.sh"} {
				assert.Contains(t, files, path.Join(r.Path, f), dir)
			}
			_, local := files[path.Join(r.Path, "Chart.yaml")]
			_, upstream := files[path.Join(r.Path, "upstream.env")]
			assert.True(t, local != upstream, "%s %s: upstream.env or Chart.yaml", dir, r.Path)
		}
		for name := range files {
			top, rest, nested := strings.Cut(name, "/")
			switch {
			case !nested:
				assert.True(t, root[name] || name == "UPGRADING.md", "%s: root file %s", dir, name)
			case folders[top]:
				file, _, _ := strings.Cut(rest, "/")
				assert.True(t, folder[file] || file == "Chart.yaml" || file == "templates", "%s: %s", dir, name)
			default:
				assert.Fail(t, "a file outside the release folders", "%s: %s", dir, name)
			}
		}
		whole := copyFiles(files)
		for name := range root {
			if _, ok := whole[name]; !ok {
				whole[name] = []byte("#!/usr/bin/env bash\n")
			}
		}
		whole["UPGRADING.md"] = []byte("# Upgrading\n")
		_, err = readBundle(whole)
		assert.NoError(t, err, dir)
	}
}

// referenceInstallScripts returns AICR's install.sh files, keyed by path.
func referenceInstallScripts(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range referenceFiles(t, "install.sh") {
		out[p] = readString(t, p)
	}
	require.NotEmpty(t, out)
	return out
}

var (
	namespaceArg = regexp.MustCompile(`--namespace[= ]["']?([a-z0-9-]+)`)
	injected     = regexp.MustCompile(`^(.*)-(pre|post|readiness)$`)
)

// bundleOf is a one-release helm bundle of AICR's install.sh script for folder (NNN-<name>):
// its namespace the script's, a local chart when it sources no upstream.env, else the upstream
// chart of upstream.env (AICR's own when the folder holds one).
func bundleOf(t *testing.T, p, script string) (map[string][]byte, ports.BundleRelease) {
	t.Helper()
	folder := filepath.Base(filepath.Dir(p))
	name := folder[4:]
	component := name
	if m := injected.FindStringSubmatch(name); m != nil {
		component = m[1]
	}
	m := namespaceArg.FindStringSubmatch(script)
	require.NotNil(t, m, "%s names no namespace", p)
	files := map[string][]byte{
		folder + "/install.sh":          []byte(script),
		folder + "/values.yaml":         []byte("# Generated by AICR\n---\n"),
		folder + "/cluster-values.yaml": []byte("# Generated by AICR\n---\n"),
		"bundle-info.yaml": fmt.Appendf(nil, "apiVersion: aicr.run/v1\nkind: BundleInfo\nmetadata:\n  version: v1.0.0\n"+
			"build:\n  deployer: helm\n  recipe:\n    path: recipe.yaml\n    version: v1.0.0\n  settings:\n    checksums: true\n"+
			"layout:\n  entrypoint: deploy.sh\n  releases:\n  - name: %s\n    component: %s\n    namespace: %s\n    path: %s\n",
			name, component, m[1], folder),
	}
	want := ports.BundleRelease{Name: name, Component: component, Namespace: m[1], Path: folder, Kind: ports.KindUpstream,
		CreateNamespace: strings.Contains(script, "--create-namespace")}
	if !strings.Contains(script, "upstream.env") {
		files[folder+"/Chart.yaml"] = []byte("apiVersion: v2\nname: " + name + "\nversion: 1.0.0\n")
		want.Kind = ports.KindLocal
	} else if env, err := os.ReadFile(filepath.Join(filepath.Dir(p), "upstream.env")); err == nil {
		files[folder+"/upstream.env"] = env
	} else {
		files[folder+"/upstream.env"] = []byte("CHART='" + name + "'\nREPO='https://charts.example'\nVERSION='1.0.0'\n")
	}
	return files, want
}

// 10.2: the injected <comp>-pre, -post and -readiness folders are local charts (`./`), -pre
// without --create-namespace, naming their parent in layout.releases[].component; manifest-only
// components are local charts too. Every AICR script of such a folder installs ./, -pre ones
// create no namespace, and the operator's reader reads each as a local chart of its parent,
// with the namespace creation its script says.
func TestFact10_2_InjectedFolders(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for p, script := range referenceInstallScripts(t) {
		folder := filepath.Base(filepath.Dir(p))
		m := injected.FindStringSubmatch(folder[4:])
		if m == nil {
			continue
		}
		seen[m[2]] = true
		assert.Regexp(t, `helm upgrade --install .*\S+ \./`, strings.ReplaceAll(script, "\"", ""), p)
		if m[2] == "pre" {
			assert.NotContains(t, script, "--create-namespace", p)
		}
		files, want := bundleOf(t, p, script)
		b, err := readBundle(files)
		require.NoError(t, err, p)
		require.Len(t, b.Releases, 1)
		got := b.Releases[0]
		assert.Equal(t, ports.KindLocal, got.Kind, p)
		assert.Equal(t, m[1], got.Component, p)
		assert.Equal(t, want.CreateNamespace, got.CreateNamespace, p)
	}
	assert.Len(t, seen, 3, "the reference holds -pre, -post and -readiness folders")
}

// 10.3: every install.sh passes -f values.yaml -f cluster-values.yaml in that order and the env
// slots COMPONENT_WAIT_ARGS, DRY_RUN_FLAG, KUBECONFIG_FLAG and HELM_DEBUG_FLAG. AICR's scripts,
// the simulator's bundles and the releases it adds do; the operator's reader reads each AICR
// script's namespace, and merges cluster-values.yaml over values.yaml as Helm does.
func TestFact10_3_InstallScripts(t *testing.T) {
	t.Parallel()
	slots := []string{"COMPONENT_WAIT_ARGS", "DRY_RUN_FLAG", "KUBECONFIG_FLAG", "HELM_DEBUG_FLAG"}
	scripts := referenceInstallScripts(t)
	for p, script := range scripts {
		files, want := bundleOf(t, p, script)
		b, err := readBundle(files)
		require.NoError(t, err, p)
		assert.Equal(t, want.Namespace, b.Releases[0].Namespace, p)
	}
	synthetic := fixtureFiles(t)
	require.NoError(t, jobexec.AddSyntheticReleases(synthetic, 20, "synthetic"))
	for dir, files := range simulatedBundles(t) {
		for name, data := range files {
			if path.Base(name) == "install.sh" {
				scripts[dir+"/"+name] = string(data)
			}
		}
	}
	scripts["added release"] = string(synthetic["020-synthetic-020/install.sh"])
	for p, script := range scripts {
		assert.Regexp(t, `-f "?values\.yaml"? -f "?cluster-values\.yaml"?`, script, p)
		for _, slot := range slots {
			assert.Contains(t, script, slot, p)
		}
	}
	layered := fixtureFiles(t)
	layered["003-cert-manager/values.yaml"] = append(layered["003-cert-manager/values.yaml"], []byte("\ncontractLayer: values\n")...)
	layered["003-cert-manager/cluster-values.yaml"] = append(layered["003-cert-manager/cluster-values.yaml"], []byte("\ncontractLayer: cluster\n")...)
	b, err := readBundle(layered)
	require.NoError(t, err)
	for _, r := range b.Releases {
		if r.Path == "003-cert-manager" {
			assert.Equal(t, "cluster", r.Values["contractLayer"])
		}
	}
}

// 10.4: upstream.env has CHART, REPO and VERSION, unquoted or single-quoted with an OCI chart's
// whole oci:// reference in CHART and REPO=”. The operator's reader reads every AICR
// upstream.env to the chart it names.
func TestFact10_4_UpstreamEnv(t *testing.T) {
	t.Parallel()
	envs := referenceFiles(t, "upstream.env")
	require.NotEmpty(t, envs)
	line := regexp.MustCompile(`(?m)^([A-Z]+)='?([^'\n]*)'?$`)
	for _, p := range envs {
		raw := readString(t, p)
		vars := map[string]string{}
		for _, m := range line.FindAllStringSubmatch(raw, -1) {
			vars[m[1]] = m[2]
		}
		files := fixtureFiles(t)
		files["009-gpu-operator/upstream.env"] = []byte(raw)
		b, err := readBundle(files)
		require.NoError(t, err, p)
		for _, r := range b.Releases {
			if r.Path != "009-gpu-operator" {
				continue
			}
			assert.Equal(t, vars["VERSION"], r.Chart.Version, p)
			if strings.HasPrefix(vars["CHART"], "oci://") {
				assert.Equal(t, vars["CHART"], r.Chart.Repository+"/"+r.Chart.Name, p)
			} else {
				assert.Equal(t, vars["CHART"], r.Chart.Name, p)
				assert.Equal(t, vars["REPO"], r.Chart.Repository, p)
			}
		}
	}
}

// 10.7: AICR v1 names the node-customization components nodewright-operator (chart
// skyhook-operator, namespace skyhook) and nodewright-customizations. AICR's own install script
// installs release nodewright-operator into skyhook, which the operator's reader reads as that
// release of chart skyhook-operator; every v1 bundle the simulator plays uses the v1 names.
func TestFact10_7_V1ComponentNames(t *testing.T) {
	t.Parallel()
	scripts := 0
	for p, script := range referenceInstallScripts(t) {
		if filepath.Base(filepath.Dir(p))[4:] != "nodewright-operator" {
			continue
		}
		scripts++
		assert.Contains(t, script, "helm upgrade --install --force-conflicts nodewright-operator ", p)
		files, _ := bundleOf(t, p, script)
		files[filepath.Base(filepath.Dir(p))+"/upstream.env"] = []byte("CHART='skyhook-operator'\n" +
			"REPO='https://helm.ngc.nvidia.com/nvidia/skyhook'\nVERSION='v0.14.0'\n")
		b, err := readBundle(files)
		require.NoError(t, err, p)
		require.Len(t, b.Releases, 1, p)
		assert.Equal(t, "nodewright-operator", b.Releases[0].Name, p)
		assert.Equal(t, "skyhook", b.Releases[0].Namespace, p)
		assert.Equal(t, "skyhook-operator", b.Releases[0].Chart.Name, p)
	}
	require.Positive(t, scripts, "the reference holds no nodewright-operator folder")

	for dir, files := range simulatedBundles(t) {
		b, err := readBundle(files)
		require.NoError(t, err, dir)
		names := map[string]ports.BundleRelease{}
		for _, r := range b.Releases {
			assert.False(t, strings.HasPrefix(r.Component, "skyhook-"), "%s: %s is a 0.x name", dir, r.Component)
			names[r.Component] = r
		}
		op, ok := names["nodewright-operator"]
		require.True(t, ok, "%s has no nodewright-operator", dir)
		assert.Equal(t, "skyhook", op.Namespace, dir)
		assert.Equal(t, "skyhook-operator", op.Chart.Name, dir)
		assert.Contains(t, names, "nodewright-customizations", dir)
	}
}
