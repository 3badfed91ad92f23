package release_test

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

const (
	root         = "../.."
	workflowPath = ".github/workflows/on-tag.yaml"
	// signerWorkflow is how users name the release workflow when they verify an attestation.
	signerWorkflow = "NVIDIA/aicr/" + workflowPath
	repository     = "NVIDIA/aicr"
)

// step is one step of the workflow's job.
type step struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
}

// workflow is the part of on-tag.yaml the release depends on. Parsed as YAML 1.2, so the key
// "on" stays a string.
type workflow struct {
	On struct {
		Push struct {
			Tags []string `yaml:"tags"`
		} `yaml:"push"`
	} `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Jobs        map[string]struct {
		Permissions map[string]string `yaml:"permissions"`
		Env         map[string]string `yaml:"env"`
		Steps       []step            `yaml:"steps"`
	} `yaml:"jobs"`
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, name))
	require.NoError(t, err)
	return string(b)
}

func readWorkflow(t *testing.T) workflow {
	t.Helper()
	var w workflow
	require.NoError(t, yaml.Unmarshal([]byte(readFile(t, workflowPath)), &w))
	return w
}

// uses returns the steps of the only job that use the action (any version).
func (w workflow) uses(action string) []step {
	var out []step
	for _, j := range w.Jobs {
		for _, s := range j.Steps {
			if strings.HasPrefix(s.Uses, action+"@") {
				out = append(out, s)
			}
		}
	}
	return out
}

// stepRunning returns the shell of the first step whose shell contains command.
func (w workflow) stepRunning(command string) string {
	for _, j := range w.Jobs {
		for _, s := range j.Steps {
			if strings.Contains(s.Run, command) {
				return s.Run
			}
		}
	}
	return ""
}

// runs returns the shell of every step, joined.
func (w workflow) runs() string {
	var b strings.Builder
	for _, j := range w.Jobs {
		for _, s := range j.Steps {
			b.WriteString(s.Run + "\n")
		}
	}
	return b.String()
}

// TestWorkflowRunsOnTagsWithLeastPermissions: the release runs on a v tag only; nothing is
// granted at the top, and its one job may write what it publishes and mint the OIDC token
// signatures and attestations need, nothing else.
func TestWorkflowRunsOnTagsWithLeastPermissions(t *testing.T) {
	t.Parallel()
	w := readWorkflow(t)
	assert.Equal(t, []string{"v*"}, w.On.Push.Tags)
	assert.Empty(t, w.Permissions)
	require.Len(t, w.Jobs, 1)
	for _, j := range w.Jobs {
		assert.Equal(t, map[string]string{
			"contents": "write", "packages": "write", "id-token": "write", "attestations": "write",
		}, j.Permissions)
	}
}

// TestWorkflowBuildsWhatTheSnapshotBuilds: the workflow builds with make release, the recipe
// make release-snapshot runs offline (one rule, the snapshot without the signature), which puts
// the bare binaries next to the checksums and writes the image digest; the chart goes through
// make release-chart, which pins every image by digest.
func TestWorkflowBuildsWhatTheSnapshotBuilds(t *testing.T) {
	t.Parallel()
	w := readWorkflow(t)
	assert.Empty(t, w.uses("goreleaser/goreleaser-action"), "GoReleaser runs through make release, at the Makefile's version")
	runs := w.runs()
	assert.Regexp(t, `(?m)^make release$`, runs)
	assert.Contains(t, runs, "make release-chart")
	assert.Contains(t, runs, "dist/image.digest")
	makefile := readFile(t, "Makefile")
	assert.Regexp(t, `(?m)^release-snapshot release: `, makefile, "one recipe for both")
	assert.Regexp(t, `(?m)^release-snapshot: GORELEASER_FLAGS := --snapshot --skip=sign$`, makefile,
		"the snapshot differs only by skipping the signature")
	recipe := regexp.MustCompile(`(?ms)^release-snapshot release: .*?\n\n`).FindString(makefile)
	assert.Contains(t, recipe, "cp $$bin dist/kubectl-aicr-", "the bare binaries next to the checksums")
	assert.Contains(t, recipe, "sha256sum --check", "the copies are the checksummed files")
	assert.Contains(t, recipe, "--digest-file dist/image.digest")
	chart := regexp.MustCompile(`(?ms)^release-chart:.*?\n\n`).FindString(makefile)
	assert.Contains(t, chart, "go run ./test/tools/chartrelease", "make release-chart pins the digests")
	assert.Contains(t, chart, "dist/image.digest", "the operator image the image build wrote")
}

// verifyCommand is one `gh attestation verify` of the docs: the artifact and the repository.
var verifyCommand = regexp.MustCompile(`gh attestation verify\s+"?([^"\s]+)"?\s+--repo\s+([\w.-]+/[\w.-]+)`)

// TestEveryVerifiedArtifactIsAttested: each artifact the docs tell users to verify with
// gh attestation verify is one the workflow attests (a plugin binary by its file name, the chart
// and the operator image by their repository), under the repository and signer workflow the
// commands name, and the GitHub release carries the files the commands download.
func TestEveryVerifiedArtifactIsAttested(t *testing.T) {
	t.Parallel()
	w := readWorkflow(t)
	var paths []string
	subjects := map[string]bool{}
	for _, s := range w.uses("actions/attest-build-provenance") {
		paths = append(paths, strings.Fields(s.With["subject-path"])...)
		if name := s.With["subject-name"]; name != "" {
			subjects[name] = true
			assert.Equal(t, "true", s.With["push-to-registry"], "%s: the attestation travels with the artifact", name)
		}
	}
	attested := func(file string) bool {
		for _, p := range paths {
			if ok, _ := path.Match(p, "dist/"+file); ok {
				return true
			}
		}
		return false
	}
	release := w.stepRunning("gh release create")
	require.NotEmpty(t, release, "a step creates the GitHub release")

	seen := 0
	for _, doc := range []string{"README.md", "docs/operations.md", "charts/aicr-operator/README.md"} {
		text := readFile(t, doc)
		for _, m := range verifyCommand.FindAllStringSubmatch(text, -1) {
			seen++
			artifact, repo := m[1], m[2]
			assert.Equal(t, repository, repo, "%s: %s", doc, m[0])
			if ref, ok := strings.CutPrefix(artifact, "oci://"); ok {
				name, _, _ := strings.Cut(ref, ":")
				assert.True(t, subjects[name], "%s: %s is not attested by %s", doc, name, workflowPath)
				continue
			}
			assert.True(t, attested(artifact), "%s: %s is not attested by %s", doc, artifact, workflowPath)
			assert.True(t, matchesAny(release, artifact), "%s: the release does not carry %s", doc, artifact)
		}
		for _, m := range regexp.MustCompile(`--signer-workflow\s+(\S+)`).FindAllStringSubmatch(text, -1) {
			assert.Equal(t, signerWorkflow, m[1], doc)
		}
	}
	assert.Positive(t, seen, "the docs show how to verify a release")

	values := readFile(t, "charts/aicr-operator/values.yaml")
	image := regexp.MustCompile(`(?m)^operator:\n  # .*\n  image:\n    repository: (\S+)`).FindStringSubmatch(values)
	require.NotNil(t, image, "values.yaml names the operator image")
	assert.True(t, subjects[image[1]], "the chart's operator image %s is attested", image[1])
	for _, j := range w.Jobs {
		chart := strings.TrimPrefix(j.Env["CHARTS"], "oci://") + "/aicr-operator"
		assert.True(t, subjects[chart], "the chart %s is attested", chart)
	}
}

// matchesAny reports whether one of the dist/ globs in list matches file.
func matchesAny(list, file string) bool {
	for _, f := range strings.Fields(list) {
		if ok, _ := path.Match(strings.Trim(f, `"\`), "dist/"+file); ok {
			return true
		}
	}
	return false
}
