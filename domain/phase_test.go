package domain_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/domain"
)

func TestPhases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		phase    domain.Phase
		terminal bool
	}{
		{domain.PhasePending, false}, {domain.PhaseAwaitingApproval, false}, {domain.PhaseProgressing, false},
		{domain.PhaseAwaitingAcknowledgement, false}, {domain.PhaseValidating, false},
		{domain.PhaseSucceeded, true}, {domain.PhaseFailed, true}, {domain.PhaseExpired, true},
		{domain.PhaseRevoked, true}, {domain.PhaseSuperseded, true}, {domain.PhaseOrphaned, true},
	}
	covered := map[domain.Phase]bool{}
	for _, tt := range tests {
		covered[tt.phase] = true
		assert.Equalf(t, tt.terminal, tt.phase.Terminal(), "phase %s", tt.phase)
	}
	t.Run("every declared Phase has a case", func(t *testing.T) {
		t.Parallel()
		declared := declaredPhases(t)
		for _, p := range declared {
			assert.Truef(t, covered[p], "no test case for phase %q", p)
		}
		assert.Len(t, covered, len(declared), "a case names a phase phase.go does not declare")
	})
}

// declaredPhases reads phase.go for the constants of type Phase, so a phase added there
// without a case above fails.
func declaredPhases(t *testing.T) []domain.Phase {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "phase.go", nil, 0)
	require.NoError(t, err)
	var out []domain.Phase
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || vs.Type == nil || len(vs.Values) != 1 {
			return true
		}
		if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "Phase" {
			if lit, ok := vs.Values[0].(*ast.BasicLit); ok {
				out = append(out, domain.Phase(lit.Value[1:len(lit.Value)-1]))
			}
		}
		return true
	})
	require.NotEmpty(t, out)
	return out
}
