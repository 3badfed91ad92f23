package aicrcontract_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// notYetHeld are the FACTS.md statements the suite has no case for yet, each with why. A
// statement leaves this list when its TestFact<major>_<minor>_ case lands.
var notYetHeld = map[string]string{
	"1.2":  "server-side apply by field manager aicr: the simulator applies as aicr (ApplyOutput), but this suite starts no API server to show the managed fields",
	"1.10": "SSA keeps foreign metadata: needs an API server to show which fields an apply by aicr leaves",
	"5.4":  "restricted agent: the operator does not run it",
	"5.7":  "collector failures: needs the real collectors",
	"7.2":  "skipped checks: the reference holds no skipped entry",
	"8.8":  "transition records: the operator reads reports, never records",
	"10.5": "apply-crds.sh: the reference trees are partial, from mixed commits",
	"11.3": "agent wait exit codes: the operator runs the agent mode only",
}

var (
	factID   = regexp.MustCompile(`(?m)^(\d+)\.(\d+) `)
	factCase = regexp.MustCompile(`(?m)^func TestFact(\d+)_(\d+)_`)
)

// Every FACTS.md statement has a case here or a recorded reason, never both, and every case
// names a statement FACTS.md has.
func TestEveryFactIsHeldOrExplained(t *testing.T) {
	t.Parallel()
	facts, err := os.ReadFile(filepath.Join(referenceDir(), "FACTS.md"))
	require.NoError(t, err)
	var ids []string
	for _, m := range factID.FindAllStringSubmatch(string(facts), -1) {
		ids = append(ids, m[1]+"."+m[2])
	}
	require.NotEmpty(t, ids)
	cases := map[string]bool{}
	sources, err := filepath.Glob("*_test.go")
	require.NoError(t, err)
	for _, src := range sources {
		raw, err := os.ReadFile(src)
		require.NoError(t, err)
		for _, m := range factCase.FindAllStringSubmatch(string(raw), -1) {
			cases[m[1]+"."+m[2]] = true
		}
	}
	for _, id := range ids {
		_, pending := notYetHeld[id]
		assert.True(t, cases[id] != pending, "FACTS.md %s needs exactly one of a TestFact case or a reason", id)
	}
	for id := range cases {
		assert.Contains(t, ids, id, "TestFact case for a statement FACTS.md does not have")
	}
	for id := range notYetHeld {
		assert.True(t, slices.Contains(ids, id), "reason for a statement FACTS.md does not have: %s", id)
	}
	t.Logf("%d of %d statements held: %s", len(cases), len(ids), strings.Join(keys(cases), " "))
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
