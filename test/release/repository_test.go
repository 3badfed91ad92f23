package release_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// repositoryURL is the one repository the module, the chart, the plugin's krew manifest, the
// image's source label, the alerts' runbooks and the attestations name.
const repositoryURL = "https://github.com/" + repository

// TestOneRepositoryNameEverywhere fails when a place users follow (go install, helm, krew, a
// runbook link, an attestation) names another repository than the one releases come from.
func TestOneRepositoryNameEverywhere(t *testing.T) {
	module := regexp.MustCompile(`(?m)^module (\S+)$`).FindStringSubmatch(readFile(t, "go.mod"))
	require.Len(t, module, 2, "go.mod names a module")
	assert.Equal(t, strings.TrimPrefix(repositoryURL, "https://"), module[1], "go.mod module path")

	places := []struct {
		file    string
		pattern string
	}{
		{"charts/aicr-operator/Chart.yaml", `(?m)^home: (\S+)`},
		{"charts/aicr-operator/Chart.yaml", `(?m)^  - (https://github\.com/\S+)`},
		{"cmd/kubectl-aicr/aicr.yaml", `homepage: (\S+)`},
		{"cmd/kubectl-aicr/aicr.yaml", `uri: (\S+)`},
		{"charts/aicr-operator/monitoring/alerts.yaml", `runbook_url: "([^"]+)"`},
		{"test/tools/imagebuild/main.go", `"source", "([^"]+)"`},
		{"README.md", "go install (\\S+)@"},
		{"docs/upgrading.md", "go install (\\S+)@"},
		{workflowPath, `--repo (\S+)`},
	}
	for _, p := range places {
		found := regexp.MustCompile(p.pattern).FindAllStringSubmatch(readFile(t, p.file), -1)
		require.NotEmpty(t, found, "%s: nothing matches %s", p.file, p.pattern)
		for _, m := range found {
			assert.True(t, namesRepository(m[1]), "%s names %q, not %s", p.file, m[1], repositoryURL)
		}
	}
}

// namesRepository reports whether ref is the repository itself or something inside it, as a
// URL, a Go import path or an owner/name pair.
func namesRepository(ref string) bool {
	for _, prefix := range []string{repositoryURL, strings.TrimPrefix(repositoryURL, "https://"), repository} {
		if ref == prefix || strings.HasPrefix(ref, prefix+"/") {
			return true
		}
	}
	return false
}
