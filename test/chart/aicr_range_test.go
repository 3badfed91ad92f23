package chart_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/domain"
)

// TestAICRVersionRange_SchemaAndOperatorAgree: one range for AICR releases (PLAT-1, RES-5):
// values.schema.json's aicr.version pattern, the rendered chart, the operator's start-up check
// (app.Config.Validate over domain.AICRVersionSupported) and the version check of a Job result
// (domain.CheckAICRArtifact) accept and refuse the same versions; the template's own check,
// for installs that skip the schema, too.
func TestAICRVersionRange_SchemaAndOperatorAgree(t *testing.T) {
	t.Parallel()
	raw, err := os.Open(filepath.Join(chartDir(), "values.schema.json"))
	require.NoError(t, err)
	defer func() { _ = raw.Close() }()
	doc, err := jsonschema.UnmarshalJSON(raw)
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("values.schema.json", doc))
	version, err := c.Compile("values.schema.json#/properties/aicr/properties/version")
	require.NoError(t, err)

	for _, tt := range []struct {
		version string
		want    bool
	}{
		{"1.0.0", true},
		{"1.1.0", true},
		{"1.2.3", true},
		{"v1.1.0", true},
		{"1.2.0-rc.1", true},
		{"1.0.1-alpha", true},
		{"1.0.0+build.5", true},
		{"1.0.0-rc.1", false},
		{"1.0.0-0", false},
		{"0.11.1", false},
		{"2.0.0", false},
		{"2.0.0-rc.1", false},
		{"01.2.3", false},
		{"1.2.3-01", false},
		{"vv1.2.3", false},
		{"1.2", false},
	} {
		t.Run(tt.version, func(t *testing.T) {
			t.Parallel()
			schemaOK := version.Validate(tt.version) == nil
			assert.Equal(t, tt.want, schemaOK, "values.schema.json aicr.version")
			assert.Equal(t, tt.want, domain.AICRVersionSupported(tt.version), "domain.AICRVersionSupported")
			assert.Equal(t, tt.want, domain.CheckAICRArtifact("recipe", tt.version) == nil, "domain.CheckAICRArtifact")
			cfg := app.Config{AICRVersion: tt.version}
			assert.Equal(t, tt.want, !containsFlag(cfg.Validate(), "--aicr-version"), "app.Config.Validate")
			_, err := render(withValues(map[string]any{"aicr.version": tt.version}))
			assert.Equal(t, tt.want, err == nil, "helm template: %v", err)
			err = renderWithoutSchema(withValues(map[string]any{"aicr.version": tt.version}))
			assert.Equal(t, tt.want, err == nil, "helm template --skip-schema-validation: %v", err)
		})
	}
}

// containsFlag reports whether err names flag.
func containsFlag(err error, flag string) bool {
	return err != nil && strings.Contains(err.Error(), flag)
}
