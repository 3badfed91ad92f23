package docs_test

import (
	"flag"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/app"
)

// flagRow is a row of the operator flag table: chart value, `--flag...`, `default`.
var flagRow = regexp.MustCompile("(?m)^\\| `([a-zA-Z.]+)`[^|]*\\| `--([a-z-]+)[^`]*`[^|]*\\| (`([^`]*)`|none) \\|$")

// TestDocs_OperatorFlagsAndDefaultsExist: every operator flag the step timeout and rollout
// window table names is one app.Config.BindFlags defines, with the default the table states.
func TestDocs_OperatorFlagsAndDefaultsExist(t *testing.T) {
	t.Parallel()
	var c app.Config
	fs := flag.NewFlagSet("aicr-operator", flag.ContinueOnError)
	c.BindFlags(fs)
	rows := flagRow.FindAllStringSubmatch(sectionBody(t, "operations.md", "Step timeout and rollout window"), -1)
	require.Len(t, rows, 3, "rollout.stepTimeout, rollout.componentStepTimeouts, rollout.window")
	for _, row := range rows {
		f := fs.Lookup(row[2])
		if !assert.NotNil(t, f, "operations.md names --%s, which the operator does not define", row[2]) {
			continue
		}
		if row[3] == "none" {
			assert.Empty(t, f.DefValue, "--%s has a default", row[2])
			continue
		}
		want, err := time.ParseDuration(row[4])
		require.NoError(t, err)
		assert.Equal(t, want.String(), f.DefValue, "--%s default", row[2])
	}
}
