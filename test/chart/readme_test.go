package chart_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/app"
)

// TestReadmeDocumentsEveryValue guards the chart README's values table: every value
// in values.schema.json is listed, by its own path or, for a structured value, an ancestor's.
func TestReadmeDocumentsEveryValue(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(chartDir(), "values.schema.json"))
	require.NoError(t, err)
	readme, err := os.ReadFile(filepath.Join(chartDir(), "README.md"))
	require.NoError(t, err)
	var schema map[string]any
	require.NoError(t, json.Unmarshal(raw, &schema))
	documented := func(path string) bool { return strings.Contains(string(readme), "`"+path+"`") }
	// A leaf is a value without inline properties; it is documented by its path or an ancestor's.
	var walk func(prefix string, node map[string]any)
	walk = func(prefix string, node map[string]any) {
		props, ok := node["properties"].(map[string]any)
		if !ok {
			found := false
			for p := prefix; p != "" && !found; p = p[:max(strings.LastIndex(p, "."), 0)] {
				found = documented(p)
			}
			assert.True(t, found, "README documents %s", prefix)
			return
		}
		for name, child := range props {
			c, _ := child.(map[string]any)
			walk(strings.TrimPrefix(prefix+"."+name, "."), c)
		}
	}
	walk("", schema)
}

// TestReadmeDocumentsEveryOperatorFlag guards the chart README's operator flag table: every flag
// the operator defines (app.Config.BindFlags) has a row there.
func TestReadmeDocumentsEveryOperatorFlag(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join(chartDir(), "README.md"))
	require.NoError(t, err)
	_, table, ok := strings.Cut(string(readme), "\n## Operator flags\n")
	require.True(t, ok, "README has an Operator flags section")
	table, _, _ = strings.Cut(table, "\n## ")
	var c app.Config
	fs := flag.NewFlagSet("aicr-operator", flag.ContinueOnError)
	c.BindFlags(fs)
	fs.VisitAll(func(f *flag.Flag) {
		assert.True(t, strings.Contains(table, "`--"+f.Name+"`"), "the operator flag table lists --%s", f.Name)
	})
}
