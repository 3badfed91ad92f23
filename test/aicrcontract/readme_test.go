package aicrcontract_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// bundleREADMEHeading opens the README.md AICR's helm bundler writes.
const bundleREADMEHeading = "# AI Cluster Runtime Deployment\n"

var (
	recipeVersionLine  = regexp.MustCompile(`(?m)^Recipe Version: (v\S+)$`)
	bundlerVersionLine = regexp.MustCompile(`(?m)^Bundler Version: (v\S+)$`)
)

// 2.4: a bundle's README.md states the recipe's and the bundler's versions. Every bundle README
// of the reference does; the README of every bundle the simulator plays states the versions its
// bundle-info.yaml records (build.recipe.version, metadata.version) and lists each component
// once, its injected releases under it. The operator reads the versions from bundle-info.yaml,
// never from the README.
func TestFact2_4_READMEVersions(t *testing.T) {
	t.Parallel()
	readmes := 0
	for _, p := range referenceFiles(t, "README.md") {
		text := readString(t, p)
		if !strings.HasPrefix(text, bundleREADMEHeading) {
			continue
		}
		readmes++
		assert.Regexp(t, recipeVersionLine, text, p)
		assert.Regexp(t, bundlerVersionLine, text, p)
	}
	require.Positive(t, readmes, "the reference holds no bundle README")

	for dir, files := range simulatedBundles(t) {
		var info struct {
			Metadata struct {
				Version string `json:"version"`
			} `json:"metadata"`
			Build struct {
				Recipe struct {
					Version string `json:"version"`
				} `json:"recipe"`
			} `json:"build"`
			Layout struct {
				Releases []struct {
					Name, Component string
				} `json:"releases"`
			} `json:"layout"`
		}
		require.NoError(t, yaml.Unmarshal(files["bundle-info.yaml"], &info), dir)
		text := string(files["README.md"])
		require.True(t, strings.HasPrefix(text, bundleREADMEHeading), "%s: %q", dir, text)
		assert.Equal(t, "v"+strings.TrimPrefix(info.Build.Recipe.Version, "v"), recipeVersionLine.FindStringSubmatch(text)[1], dir)
		assert.Equal(t, "v"+strings.TrimPrefix(info.Metadata.Version, "v"), bundlerVersionLine.FindStringSubmatch(text)[1], dir)
		for _, r := range info.Layout.Releases {
			row := fmt.Sprintf("\n| %s |", r.Name)
			if r.Name == r.Component {
				assert.Equal(t, 1, strings.Count(text, row), "%s: one row for component %s", dir, r.Name)
			} else {
				assert.NotContains(t, text, row, "%s: no row for the injected release %s", dir, r.Name)
			}
		}
	}
}
