package docs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// requirementIndex is the page that defines every requirement ID the repository cites.
const requirementIndex = "design/requirements.md"

var (
	// requirementID is how code, tests and docs cite a requirement: AREA-n.
	requirementID = regexp.MustCompile(`\b(?:PLAT|CR|PLAN|RES|RO|ADM|ENG|REG|RET|CH|CLI|OPS)-[0-9]+\b`)
	// definedID is a requirement's bullet in the index.
	definedID = regexp.MustCompile(`(?m)^- \*\*([A-Z]+-[0-9]+)\*\*`)
	// outsideReference names a document, rule or ticket that is not in the repository.
	outsideReference = regexp.MustCompile(`\b(?:REQUIREMENTS|DESIGN|STYLE|AICR-CLI)\.md\b|\.\./shared/|\bSTYLE R[0-9]+|\b[Ii]ssues? #?[0-9]+\b`)
	// repoPath is a path into the repository named in prose: it starts at a top-level folder
	// and is not part of a longer path, URL or placeholder.
	repoPath = regexp.MustCompile(`(?:^|[\s(\x60'])((?:adapters|app|cmd|domain|ports|test|charts|docs|hack)/[A-Za-z0-9_./-]*[A-Za-z0-9_])`)
	// pageName is a page named by its file name alone, not as part of a path or URL.
	pageName = regexp.MustCompile(`(?:^|[^/\w.-])([A-Za-z0-9_-]+\.md)\b`)
	// bundleFiles are Markdown files of AICR's bundle format: named as data the operator reads,
	// not as pages of this repository.
	bundleFiles = map[string]bool{"UPGRADING.md": true}
	// markdownLink is a relative link of a page.
	markdownLink = regexp.MustCompile(`\]\(([A-Za-z0-9_./-]+)(?:#[^)]*)?\)`)
)

// repoRoot is the repository's top folder, the parent of docs.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	return root
}

// authoredFiles are the files the project writes itself: sources, scripts, manifests and
// pages, without upstream artifacts kept as test data and without generated sums.
func authoredFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			hidden := strings.HasPrefix(d.Name(), ".") && rel != "." && d.Name() != ".ci"
			if hidden || d.Name() == "testdata" || d.Name() == "bin" {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".yaml", ".yml", ".sh", ".tpl", ".txt", ".json", ".mod":
			files = append(files, rel)
		}
		if d.Name() == "Makefile" || d.Name() == "run" {
			files = append(files, rel)
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, files)
	return files
}

// TestEveryCitedRequirementIsDefined fails on a requirement ID that the index does not define,
// and on an index entry defined twice.
func TestEveryCitedRequirementIsDefined(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	var defined []string
	for _, m := range definedID.FindAllStringSubmatch(read(t, requirementIndex), -1) {
		assert.NotContains(t, defined, m[1], "%s defines a requirement twice", requirementIndex)
		defined = append(defined, m[1])
	}
	require.NotEmpty(t, defined, "%s defines no requirement", requirementIndex)
	cited := 0
	for _, file := range authoredFiles(t, root) {
		text, err := os.ReadFile(filepath.Join(root, file))
		require.NoError(t, err)
		for _, id := range requirementID.FindAllString(string(text), -1) {
			cited++
			assert.True(t, slices.Contains(defined, id), "%s cites %s, which %s does not define", file, id, requirementIndex)
		}
	}
	assert.Positive(t, cited, "no file cites a requirement: the pattern no longer matches the citations")
}

// TestNothingPointsOutsideTheRepository fails on a citation of a document, rule or ticket the
// repository does not hold, and on a page named by a file name no page of the repository has.
func TestNothingPointsOutsideTheRepository(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	pages := pageNames(t, root)
	for _, file := range authoredFiles(t, root) {
		text, err := os.ReadFile(filepath.Join(root, file))
		require.NoError(t, err)
		for n, line := range strings.Split(string(text), "\n") {
			if m := outsideReference.FindString(line); m != "" && !isThisTest(file) {
				t.Errorf("%s:%d names %q, which is not in the repository", file, n+1, m)
			}
			for _, m := range pageName.FindAllStringSubmatch(line, -1) {
				if !pages[m[1]] && !bundleFiles[m[1]] {
					t.Errorf("%s:%d names %s, which no page of the repository is", file, n+1, m[1])
				}
			}
		}
	}
}

// pageNames are the file names of every page in the repository, test data included.
func pageNames(t *testing.T, root string) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() && filepath.Ext(path) == ".md" {
			names[d.Name()] = true
		}
		return nil
	})
	require.NoError(t, err)
	return names
}

// TestNamedPathsExist fails on a repository path named in a comment or page that does not
// exist (a file that moved), and on a relative link of a page that leads nowhere.
func TestNamedPathsExist(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	for _, file := range authoredFiles(t, root) {
		text, err := os.ReadFile(filepath.Join(root, file))
		require.NoError(t, err)
		for n, line := range strings.Split(string(text), "\n") {
			for _, m := range repoPath.FindAllStringSubmatch(line, -1) {
				if !pathExists(root, m[1]) {
					t.Errorf("%s:%d names %s, which does not exist", file, n+1, m[1])
				}
			}
			if filepath.Ext(file) != ".md" {
				continue
			}
			for _, m := range markdownLink.FindAllStringSubmatch(line, -1) {
				target := filepath.Join(root, filepath.Dir(file), m[1])
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s:%d links to %s, which does not exist", file, n+1, m[1])
				}
			}
		}
	}
}

// pathExists reports whether a named path exists, read as a file or folder, or as a Go
// package path followed by a symbol (adapters/jobs.Output).
func pathExists(root, name string) bool {
	name = strings.TrimRight(name, ".")
	for candidate := name; candidate != ""; {
		if _, err := os.Stat(filepath.Join(root, candidate)); err == nil {
			return true
		}
		dot := strings.LastIndex(candidate, ".")
		if dot < strings.LastIndex(candidate, "/") || dot < 0 {
			return false
		}
		candidate = candidate[:dot]
	}
	return false
}

// isThisTest exempts the file that spells the patterns it looks for.
func isThisTest(file string) bool {
	return file == filepath.Join("docs", "references_test.go")
}
