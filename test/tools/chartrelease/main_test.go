package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/NVIDIA/aicr/test/chartrender"
)

var digests = map[string]string{
	"operator": "sha256:" + strings.Repeat("1", 64),
	"aicr":     "sha256:" + strings.Repeat("2", 64),
	"tests":    "sha256:" + strings.Repeat("3", 64),
}

func releaseArgs(out string) []string {
	return []string{"--chart", chartrender.ChartDir(), "--version", "0.2.0", "--out", out,
		"--operator-digest", digests["operator"], "--aicr-digest", digests["aicr"], "--tests-digest", digests["tests"]}
}

// TestReleasePinsEveryImage: the packaged chart carries the release's version and the three
// digests, renders its operator, its AICR Jobs' image and its helm test Pod pinned by them, and
// its values.yaml is the repository's line for line apart from the three digests.
func TestReleasePinsEveryImage(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	path, err := run(releaseArgs(out))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(out, "aicr-operator-0.2.0.tgz"), path)
	ch, err := loader.Load(path)
	require.NoError(t, err)
	assert.Equal(t, "0.2.0", ch.Metadata.Version)
	assert.Equal(t, "0.2.0", ch.Metadata.AppVersion)

	objs, err := chartrender.RenderChart(ch, "aicr-operator", "aicr-system", chartrender.RequiredValues())
	require.NoError(t, err)
	args, err := chartrender.OperatorArgs(objs, "aicr-system")
	require.NoError(t, err)
	assert.Equal(t, "ghcr.io/nvidia/aicr-operator:0.2.0@"+digests["operator"], chartrender.FlagValue(args, "--operator-image"))
	assert.Equal(t, "ghcr.io/nvidia/aicr:v1.0.0@"+digests["aicr"], chartrender.FlagValue(args, "--aicr-image"))
	hooks, err := chartrender.HooksOf(ch, "aicr-system", chartrender.RequiredValues())
	require.NoError(t, err)
	var testImages []string
	for _, h := range hooks {
		if h.GetKind() == "Pod" {
			containers, _, _ := unstructured.NestedSlice(h.Object, "spec", "containers")
			for _, c := range containers {
				image, _, _ := unstructured.NestedString(c.(map[string]any), "image")
				testImages = append(testImages, image)
			}
		}
	}
	assert.Equal(t, []string{"registry.k8s.io/kubectl@" + digests["tests"]}, testImages)

	source, err := os.ReadFile(filepath.Join(chartrender.ChartDir(), chartutil.ValuesfileName))
	require.NoError(t, err)
	var packaged []byte
	for _, f := range ch.Raw {
		if f.Name == chartutil.ValuesfileName {
			packaged = f.Data
		}
	}
	srcLines, pkgLines := bytes.Split(source, []byte("\n")), bytes.Split(packaged, []byte("\n"))
	require.Len(t, pkgLines, len(srcLines), "the same lines")
	var changed []string
	for i := range srcLines {
		if !bytes.Equal(srcLines[i], pkgLines[i]) {
			changed = append(changed, strings.TrimSpace(string(pkgLines[i])))
		}
	}
	assert.ElementsMatch(t, []string{
		`digest: "` + digests["operator"] + `"`, `digest: "` + digests["aicr"] + `"`, `digest: "` + digests["tests"] + `"`,
	}, changed, "only the digests change; the comments of the values reference stay")
}

// TestReleaseRefusesUnpinnedImages: a missing, malformed or placeholder digest and a version with
// a leading v are refused, each named, and nothing is written.
func TestReleaseRefusesUnpinnedImages(t *testing.T) {
	t.Parallel()
	zeros := "sha256:" + strings.Repeat("0", 64)
	cases := map[string]struct {
		set  []string
		want string
	}{
		"missing":      {[]string{"--operator-digest", ""}, `--operator-digest "" is not a sha256 digest`},
		"placeholder":  {[]string{"--aicr-digest", zeros}, "--aicr-digest \"" + zeros + "\" is not a sha256 digest of a released image"},
		"a tag":        {[]string{"--tests-digest", "latest"}, `--tests-digest "latest"`},
		"short":        {[]string{"--operator-digest", "sha256:abc"}, `--operator-digest "sha256:abc"`},
		"leading v":    {[]string{"--version", "v0.2.0"}, `--version "v0.2.0" is not a semantic version without a leading v`},
		"no version":   {[]string{"--version", ""}, `--version ""`},
		"upper digest": {[]string{"--aicr-digest", "sha256:" + strings.Repeat("A", 64)}, `--aicr-digest`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			_, err := run(append(releaseArgs(out), c.set...))
			require.ErrorContains(t, err, c.want)
			entries, readErr := os.ReadDir(out)
			require.NoError(t, readErr)
			assert.Empty(t, entries, "nothing written")
		})
	}
}

// TestSetScalarKeepsTheRest: a scalar is replaced where it stands, plain, single- or
// double-quoted, a trailing comment kept; a missing path or a non-scalar is an error.
func TestSetScalarKeepsTheRest(t *testing.T) {
	t.Parallel()
	src := "# top\na:\n  b: plain # why\n  c: 'single'\n  d: \"double\"\n  e: {x: 1}\n"
	for key, want := range map[string]string{
		"b": "  b: \"new\" # why", "c": "  c: \"new\"", "d": "  d: \"new\"",
	} {
		got, err := setScalar([]byte(src), []string{"a", key}, "new")
		require.NoError(t, err, key)
		lines := strings.Split(string(got), "\n")
		assert.Contains(t, lines, want, key)
		assert.Equal(t, len(strings.Split(src, "\n")), len(lines), key)
		assert.Equal(t, "# top", lines[0])
	}
	_, err := setScalar([]byte(src), []string{"a", "missing"}, "new")
	require.ErrorContains(t, err, "no a.missing")
	_, err = setScalar([]byte(src), []string{"a", "e"}, "new")
	require.ErrorContains(t, err, "a.e is not a scalar")
}
