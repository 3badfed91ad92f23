package aicrcontract_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// 10.5: AICR writes apply-crds.sh only into the folder of a component that owns its CRDs and
// installs the registry's chart (an upstream.env beside it); install.sh runs it first unless
// DRY_RUN_FLAG is set, and it acts only when the release already exists. The operator's reader
// reads such a folder as the one release of that chart (the script is neither a release nor an
// error), and the operations page says what the operator does instead of the script.
func TestFact10_5_ApplyCRDsScript(t *testing.T) {
	t.Parallel()
	scripts := referenceFiles(t, "apply-crds.sh")
	require.NotEmpty(t, scripts, "the reference holds no apply-crds.sh")
	for _, p := range scripts {
		dir := filepath.Dir(p)
		crds := readString(t, p)
		install := readString(t, filepath.Join(dir, "install.sh"))
		_, err := os.Stat(filepath.Join(dir, "upstream.env"))
		require.NoError(t, err, "%s: apply-crds.sh for a chart that is not the registry's", p)
		guard, run, ok := strings.Cut(install, "bash ./apply-crds.sh")
		require.True(t, ok, "%s: install.sh does not run apply-crds.sh", p)
		assert.Contains(t, guard[strings.LastIndex(guard, "\nif "):], "DRY_RUN_FLAG", "%s: runs under --dry-run", p)
		assert.Contains(t, run, "helm upgrade --install", "%s: apply-crds.sh runs after the upgrade", p)
		assert.Contains(t, crds, "helm list", "%s: acts without asking whether the release exists", p)
		assert.Contains(t, crds, "no existing release", p)

		files, want := bundleOf(t, filepath.Join(dir, "install.sh"), install)
		files[filepath.Base(dir)+"/apply-crds.sh"] = []byte(crds)
		b, err := readBundle(files)
		require.NoError(t, err, p)
		require.Len(t, b.Releases, 1, p)
		assert.Equal(t, want.Kind, b.Releases[0].Kind, p)
		assert.Equal(t, want.Name, b.Releases[0].Name, p)
	}
	var instead string
	for action, text := range deployScriptRows(t) {
		if strings.Contains(action, "apply-crds.sh") {
			instead = text
		}
	}
	assert.Contains(t, instead, "Argo CD", "the operations page does not say what replaces apply-crds.sh")
}
