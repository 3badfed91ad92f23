package aicrcontract_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/test/jobexec"
)

// referenceDir is the AICR v1 reference directory the suite reads.
func referenceDir() string {
	if dir := os.Getenv("AICR_REFERENCE_DIR"); dir != "" {
		return dir
	}
	return filepath.Join(jobexec.Root(), "test", "testdata", "aicr", "v1-reference")
}

// referenceFiles returns every file under the reference directory whose name ends in suffix.
func referenceFiles(t *testing.T, suffix string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(referenceDir(), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, suffix) {
			out = append(out, p)
		}
		return err
	})
	require.NoError(t, err)
	return out
}

// jsonObject reads path as one JSON object.
func jsonObject(t *testing.T, path string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(raw, &doc), path)
	return doc
}

// upgradeReports returns AICR's JSON upgrade-check reports in the reference directory: the
// JSON goldens holding a components list.
func upgradeReports(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, p := range referenceFiles(t, ".json.golden") {
		raw, err := os.ReadFile(p)
		require.NoError(t, err)
		var probe struct {
			Components json.RawMessage `json:"components"`
		}
		if json.Unmarshal(raw, &probe) == nil && probe.Components != nil {
			out[p] = raw
		}
	}
	require.NotEmpty(t, out, "the reference directory holds no upgrade-check report")
	return out
}

// keySets returns, over docs, the keys present in at least one and the keys present in all.
func keySets(docs []map[string]any) (anyOf, allOf map[string]bool) {
	anyOf, allOf = map[string]bool{}, map[string]bool{}
	for i, d := range docs {
		for k := range d {
			anyOf[k] = true
			if i == 0 {
				allOf[k] = true
			}
		}
		for k := range allOf {
			if _, ok := d[k]; !ok {
				delete(allOf, k)
			}
		}
	}
	return anyOf, allOf
}

// readString reads path.
func readString(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(raw)
}
