package argocd_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/argocd"
	"github.com/NVIDIA/aicr/ports"
)

// TestSpecsReportADamagedRecordUnplaced: an Application whose recorded release spec does not
// parse is reported with its identity and owner and no plan position, so a rebuild refuses it
// rather than guessing, and the other Applications are still reported (PLAN-7).
func TestSpecsReportADamagedRecordUnplaced(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e, _ := newEngine(t, cp.Config, argocd.Config{})
	damaged, intact := release("specs-damaged", "damaged"), release("specs-damaged", "intact")
	intact.Position = 1
	for _, s := range []ports.ReleaseSpec{damaged, intact} {
		require.NoError(t, e.Apply(ctx, s))
		t.Cleanup(func() { _ = sim.FinishDeletion(ctx, s.Ref) })
	}
	mergePatchApp(t, damaged.Ref, `{"metadata":{"annotations":{"`+argocd.AnnotationReleaseSpec+`":"{not json"}}}`)

	specs, err := e.Specs(ctx)
	require.NoError(t, err, "one damaged object does not hide the others")
	got := map[string]ports.ReleaseSpec{}
	for _, s := range specs {
		if s.Ref.Namespace == "specs-damaged" {
			got[s.Ref.ID] = s
		}
	}
	require.Len(t, got, 2)
	assert.Equal(t, -1, got["damaged"].Position)
	assert.Equal(t, damaged.Owner, got["damaged"].Owner)
	assert.Equal(t, 1, got["intact"].Position)
	assert.Equal(t, intact.Chart, got["intact"].Chart)
}
