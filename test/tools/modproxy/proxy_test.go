package main

import (
	"archive/zip"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/mod/module"
)

// checkout makes a git repository with files (path to content) committed, then writes
// untracked on top of it.
func checkout(t *testing.T, committed, untracked map[string]string) string {
	t.Helper()
	root := t.TempDir()
	write := func(files map[string]string) {
		for p, content := range files {
			full := filepath.Join(root, filepath.FromSlash(p))
			require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
			require.NoError(t, os.WriteFile(full, []byte(content), 0o644))
		}
	}
	run := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", root, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_COMMITTER_DATE=2026-12-01T12:00:00Z", "GIT_AUTHOR_DATE=2026-12-01T12:00:00Z")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
	}
	run("init", "-q")
	write(committed)
	run("add", "-A")
	run("commit", "-q", "-m", "c")
	write(untracked)
	return root
}

func zipNames(t *testing.T, path string) []string {
	t.Helper()
	r, err := zip.OpenReader(path)
	require.NoError(t, err)
	defer func() { assert.NoError(t, r.Close()) }()
	var names []string
	for _, f := range r.File {
		names = append(names, f.Name)
	}
	sort.Strings(names)
	return names
}

// TestPublishWritesTheCheckoutAsAModuleVersion: the proxy holds the checkout's tracked and
// untracked files, never ignored ones or a nested module, at a pseudo-version of HEAD's time.
func TestPublishWritesTheCheckoutAsAModuleVersion(t *testing.T) {
	t.Parallel()
	root := checkout(t, map[string]string{
		"go.mod":        "module example.com/Tool\n\ngo 1.26\n",
		"main.go":       "package main\n\nfunc main() {}\n",
		".gitignore":    "bin/\n",
		"nested/go.mod": "module example.com/Tool/nested\n",
		"nested/x.go":   "package nested\n",
	}, map[string]string{"extra.go": "package main\n", "bin/tool": "binary"})
	dir := t.TempDir()

	m, err := Publish(root, dir)
	require.NoError(t, err)
	assert.Equal(t, "example.com/Tool", m.Path)
	assert.True(t, module.IsPseudoVersion(m.Version), m.Version)
	assert.Regexp(t, `^v0\.0\.0-20261201120000-[0-9a-f]{12}$`, m.Version)

	base := filepath.Join(dir, "example.com", "!tool", "@v")
	list, err := os.ReadFile(filepath.Join(base, "list"))
	require.NoError(t, err)
	assert.Equal(t, m.Version+"\n", string(list))
	mod, err := os.ReadFile(filepath.Join(base, m.Version+".mod"))
	require.NoError(t, err)
	assert.Equal(t, "module example.com/Tool\n\ngo 1.26\n", string(mod))
	info, err := os.ReadFile(filepath.Join(base, m.Version+".info"))
	require.NoError(t, err)
	assert.JSONEq(t, `{"Version":"`+m.Version+`","Time":"2026-12-01T12:00:00Z"}`, string(info))
	prefix := "example.com/Tool@" + m.Version + "/"
	assert.Equal(t, []string{prefix + ".gitignore", prefix + "extra.go", prefix + "go.mod", prefix + "main.go"},
		zipNames(t, filepath.Join(base, m.Version+".zip")))

	again, err := Publish(root, t.TempDir())
	require.NoError(t, err)
	assert.Equal(t, m, again, "the same content is the same version")
	require.NoError(t, os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\nfunc main() { _ = 1 }\n"), 0o644))
	changed, err := Publish(root, t.TempDir())
	require.NoError(t, err)
	assert.NotEqual(t, m.Version, changed.Version, "changed content is a new version")
}

// TestPublishRefusesWhatIsNoModuleCheckout: each input that cannot be published is an error
// that says why.
func TestPublishRefusesWhatIsNoModuleCheckout(t *testing.T) {
	t.Parallel()
	notGit := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(notGit, "go.mod"), []byte("module example.com/m\n"), 0o644))
	cases := []struct {
		name, root, want string
	}{
		{"no go.mod", checkout(t, map[string]string{"main.go": "package main\n"}, nil), "read the checkout's go.mod"},
		{"go.mod without a module line", checkout(t, map[string]string{"go.mod": "go 1.26\n"}, nil), "names no module"},
		{"not a git checkout", notGit, "git ls-files"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := Publish(c.root, t.TempDir())
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}
