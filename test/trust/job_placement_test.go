package trust_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/test/jobexec"
)

// systemNodes is the node selector of the fixture runtime's system node group.
func systemNodes() map[string]string {
	sel := map[string]string{}
	for k, v := range jobexec.FixtureRuntimeSpec().Placement.System.NodeSelector {
		sel[k] = string(v)
	}
	return sel
}

// TestAttack_AcceleratedNodeHostsAnAICRJob: whoever controls an accelerated node (a tenant's
// privileged training Pod, a compromised node agent) reads the token and mounted Secrets of
// every Pod on it: an AICR Job there would hand over the bundle Job's push credential and the
// Jobs identity. Every AICR Job of the resolution runs on the runtime's system node group
// (the chart's jobs.nodeSelector, when set, names other nodes instead); only the snapshot
// agent, which must read a GPU node, runs on the accelerated group.
func TestAttack_AcceleratedNodeHostsAnAICRJob(t *testing.T) {
	w := baseline(t)
	require.NotEmpty(t, w.exec.Executed(), "the baseline resolution ran AICR Jobs")
	for _, v := range w.exec.Violations() {
		assert.NotErrorIs(t, v, jobexec.ErrMisplaced, "an AICR Job outside the system node group")
	}
}
