package main

import (
	"os"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// goreleaserConfig is the part of .goreleaser.yaml the release depends on.
type goreleaserConfig struct {
	Version int `json:"version"`
	Builds  []struct {
		ID           string   `json:"id"`
		Main         string   `json:"main"`
		Env          []string `json:"env"`
		Goos         []string `json:"goos"`
		Goarch       []string `json:"goarch"`
		Flags        []string `json:"flags"`
		Ldflags      []string `json:"ldflags"`
		ModTimestamp string   `json:"mod_timestamp"`
	} `json:"builds"`
	Archives []struct {
		ID           string   `json:"id"`
		IDs          []string `json:"ids"`
		Formats      []string `json:"formats"`
		NameTemplate string   `json:"name_template"`
		Files        []struct {
			Src string `json:"src"`
		} `json:"files"`
	} `json:"archives"`
	Checksum struct {
		NameTemplate string `json:"name_template"`
	} `json:"checksum"`
	SBOMs []struct {
		Artifacts string   `json:"artifacts"`
		IDs       []string `json:"ids"`
		Documents []string `json:"documents"`
		Cmd       string   `json:"cmd"`
	} `json:"sboms"`
	Signs []struct {
		Artifacts string   `json:"artifacts"`
		Cmd       string   `json:"cmd"`
		Signature string   `json:"signature"`
		Args      []string `json:"args"`
	} `json:"signs"`
}

// readGoreleaser reads the repository's .goreleaser.yaml.
func readGoreleaser(t *testing.T) goreleaserConfig {
	t.Helper()
	raw, err := os.ReadFile("../../.goreleaser.yaml")
	require.NoError(t, err)
	var c goreleaserConfig
	require.NoError(t, yaml.Unmarshal(raw, &c))
	return c
}

// TestGoreleaserMatchesKrew: .goreleaser.yaml builds kubectl-aicr reproducibly for exactly the
// krew manifest's platforms and names each archive as the manifest's uri does, with the
// completion shim inside, and each bare binary kubectl-aicr-<os>-<arch> as the install commands
// download it; the operator is built for linux amd64 and arm64.
func TestGoreleaserMatchesKrew(t *testing.T) {
	t.Parallel()
	c := readGoreleaser(t)
	assert.Equal(t, 2, c.Version)
	assert.Equal(t, "checksums.txt", c.Checksum.NameTemplate)

	builds := map[string][]string{}
	for _, b := range c.Builds {
		assert.Equal(t, []string{"CGO_ENABLED=0"}, b.Env, b.ID)
		assert.Equal(t, []string{"-trimpath"}, b.Flags, b.ID)
		assert.Equal(t, []string{"-s -w -X main.version={{.Version}}"}, b.Ldflags, b.ID)
		assert.Equal(t, "{{ .Env.SOURCE_DATE_EPOCH }}", b.ModTimestamp, b.ID)
		assert.Equal(t, "./cmd/"+b.ID, b.Main)
		for _, goos := range b.Goos {
			for _, arch := range b.Goarch {
				builds[b.ID] = append(builds[b.ID], goos+"-"+arch)
			}
		}
	}
	assert.ElementsMatch(t, []string{"linux-amd64", "linux-arm64"}, builds["aicr-operator"])

	require.Len(t, c.Archives, 2)
	a, bare := c.Archives[0], c.Archives[1]
	assert.Equal(t, "kubectl-aicr-binary", bare.ID, "the SBOMs catalog the bare binaries by this id")
	assert.Equal(t, []string{"kubectl-aicr"}, bare.IDs)
	assert.Equal(t, []string{"binary"}, bare.Formats, "the bare binaries")
	assert.Equal(t, "kubectl-aicr-{{ .Os }}-{{ .Arch }}", bare.NameTemplate)
	assert.Equal(t, []string{"kubectl-aicr"}, a.IDs)
	assert.Equal(t, []string{"tar.gz"}, a.Formats)
	assert.True(t, slices.ContainsFunc(a.Files, func(f struct {
		Src string `json:"src"`
	}) bool {
		return f.Src == "cmd/kubectl-aicr/kubectl_complete-aicr"
	}), "the archive holds the completion shim")

	var p krewPlugin
	raw, err := os.ReadFile("aicr.yaml")
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(raw, &p))
	var want []string
	for _, pl := range p.Spec.Platforms {
		osArch := pl.Selector.MatchLabels["os"] + "-" + pl.Selector.MatchLabels["arch"]
		want = append(want, osArch)
		name := strings.NewReplacer("{{ .Os }}", pl.Selector.MatchLabels["os"],
			"{{ .Arch }}", pl.Selector.MatchLabels["arch"]).Replace(a.NameTemplate)
		assert.Equal(t, path.Base(pl.URI), name+".tar.gz", "archive name of %s", osArch)
	}
	assert.ElementsMatch(t, want, builds["kubectl-aicr"])
}

// TestGoreleaserSBOMsAndSignature: every binary of both builds gets a CycloneDX SBOM named after
// its binary, os and arch, and checksums.txt a keyless cosign signature bundle.
func TestGoreleaserSBOMsAndSignature(t *testing.T) {
	t.Parallel()
	c := readGoreleaser(t)
	require.Len(t, c.SBOMs, 1)
	sbom := c.SBOMs[0]
	assert.Equal(t, "binary", sbom.Artifacts)
	assert.ElementsMatch(t, []string{"kubectl-aicr-binary", "aicr-operator"}, sbom.IDs)
	assert.Equal(t, []string{"{{ .Binary }}-{{ .Os }}-{{ .Arch }}.cdx.json"}, sbom.Documents)
	assert.Equal(t, "cyclonedx-gomod", sbom.Cmd)
	require.Len(t, c.Signs, 1)
	sign := c.Signs[0]
	assert.Equal(t, "checksum", sign.Artifacts)
	assert.Equal(t, "cosign", sign.Cmd)
	assert.Equal(t, "${artifact}.sigstore.json", sign.Signature)
	assert.Equal(t, []string{"sign-blob", "--yes", "--bundle=${signature}", "${artifact}"}, sign.Args)
}
