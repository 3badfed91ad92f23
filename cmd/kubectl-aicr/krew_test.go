package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// krewPlugin is the part of krew's v1alpha2 Plugin the index requires.
type krewPlugin struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Version          string `json:"version"`
		Homepage         string `json:"homepage"`
		ShortDescription string `json:"shortDescription"`
		Description      string `json:"description"`
		Caveats          string `json:"caveats"`
		Platforms        []struct {
			Selector struct {
				MatchLabels map[string]string `json:"matchLabels"`
			} `json:"selector"`
			URI    string `json:"uri"`
			SHA256 string `json:"sha256"`
			Files  []struct {
				From string `json:"from"`
				To   string `json:"to"`
			} `json:"files"`
			Bin string `json:"bin"`
		} `json:"platforms"`
	} `json:"spec"`
}

var (
	sha256Hex  = regexp.MustCompile(`^[0-9a-f]{64}$`)
	semverLike = regexp.MustCompile(`^v\d+\.\d+\.\d+$`)
)

// TestKrewManifest: aicr.yaml is a krew index Plugin named aicr with linux and darwin, amd64
// and arm64 archives of this release, each with a well-formed sha256 placeholder and the
// kubectl-aicr binary.
func TestKrewManifest(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("aicr.yaml")
	require.NoError(t, err)
	var p krewPlugin
	require.NoError(t, yaml.UnmarshalStrict(raw, &p, yaml.DisallowUnknownFields), "only fields this test knows")

	assert.Equal(t, "krew.googlecontainertools.github.com/v1alpha2", p.APIVersion)
	assert.Equal(t, "Plugin", p.Kind)
	assert.Equal(t, "aicr", p.Metadata.Name)
	assert.Regexp(t, semverLike, p.Spec.Version)
	assert.NotEmpty(t, p.Spec.Homepage)
	assert.NotEmpty(t, p.Spec.ShortDescription)
	assert.NotEmpty(t, p.Spec.Description)

	seen := map[string]bool{}
	for _, pl := range p.Spec.Platforms {
		goos, arch := pl.Selector.MatchLabels["os"], pl.Selector.MatchLabels["arch"]
		key := goos + "/" + arch
		assert.False(t, seen[key], "platform %s listed twice", key)
		seen[key] = true
		assert.Equal(t, "kubectl-aicr", pl.Bin, key)
		assert.Regexp(t, sha256Hex, pl.SHA256, key)
		assert.True(t, strings.HasPrefix(pl.URI, "https://"), key)
		assert.Contains(t, pl.URI, "/"+p.Spec.Version+"/kubectl-aicr-"+goos+"-"+arch+".tar.gz", key)
		var from []string
		for _, f := range pl.Files {
			from = append(from, f.From)
		}
		assert.ElementsMatch(t, []string{"kubectl-aicr", "kubectl_complete-aicr"}, from, key)
	}
	for _, want := range []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64"} {
		assert.True(t, seen[want], "platform %s", want)
	}
	assert.Len(t, seen, 4)
}
