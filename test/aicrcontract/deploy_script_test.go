package aicrcontract_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/test/jobexec"
)

// deployScriptActions are the actions of AICR's deploy.sh besides helm upgrade --install, each
// as FACTS.md 10.6 names it and as the first column of the operations page's deploy.sh table
// names it.
var deployScriptActions = []struct{ fact, row string }{
	{"loops the folders in order, with retries", "in order, retrying"},
	{"Helm-hook cleanup", "Helm hooks"},
	{"waits for the GPU Operator driver upgrade", "Waits for the GPU Operator's driver upgrade"},
	{"restarts the DRA kubelet plugin", "restarts the DRA driver's kubelet plugin"},
	{"installs kai-scheduler without `--wait`", "kai-scheduler without `--wait`"},
	{"removes stale nodewright taints", "stale nodewright taints"},
	{"runs pre-flight checks", "Pre-flight checks"},
}

// deployScriptRows are the rows of the operations page's deploy.sh table: its first column
// (the action) to its second (what the operator does instead).
func deployScriptRows(t *testing.T) map[string]string {
	t.Helper()
	page := readString(t, filepath.Join(jobexec.Root(), "docs", "operations.md"))
	_, section, ok := strings.Cut(page, "## What AICR's deploy.sh does, and what the operator does instead")
	require.True(t, ok, "the operations page has no deploy.sh section")
	section, _, _ = strings.Cut(section, "\n## ")
	rows := map[string]string{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if strings.HasPrefix(line, "| ") && len(cells) == 2 {
			rows[strings.TrimSpace(cells[0])] = strings.TrimSpace(cells[1])
		}
	}
	return rows
}

// 10.6: deploy.sh installs the folders in order with retries and Helm-hook cleanup, and also
// handles the DRA driver after a driver upgrade, kai-scheduler, stale nodewright taints and
// pre-flight checks. The operator runs no deploy.sh: the operations page says, for each of
// those actions, what the operator does instead or what the user does by hand.
func TestFact10_6_DeployScriptActions(t *testing.T) {
	t.Parallel()
	statement := strings.Join(strings.Fields(fact(t, "10.6")), " ")
	rows := deployScriptRows(t)
	for _, a := range deployScriptActions {
		assert.Contains(t, statement, a.fact, "FACTS.md 10.6 no longer names this action")
		var instead string
		for action, text := range rows {
			if strings.Contains(action, a.row) {
				instead = text
			}
		}
		assert.NotEmpty(t, instead, "the operations page says nothing of deploy.sh's %q", a.fact)
	}
}
