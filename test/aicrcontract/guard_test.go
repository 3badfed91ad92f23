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
var notYetHeld = map[string]string{}

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
