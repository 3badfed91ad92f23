package docs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/domain"
)

// TestEventsDocumented keeps the Events section of the operations guide and the domain's Event
// reasons in step: each reason the domain names is documented, and each name the section
// documents is an Event reason or a stall reason.
func TestEventsDocumented(t *testing.T) {
	t.Parallel()
	text := read(t, "operations.md")
	start := strings.Index(text, "### Events\n")
	require.GreaterOrEqual(t, start, 0, "operations.md has an Events section")
	section := text[start+len("### Events\n"):]
	if end := strings.Index(section, "\n#"); end >= 0 {
		section = section[:end]
	}
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("`([A-Z][A-Za-z]+)`").FindAllStringSubmatch(section, -1) {
		documented[m[1]] = true
	}
	known := map[string]bool{}
	for _, r := range domainEventReasons(t) {
		known[r] = true
		assert.Truef(t, documented[r], "Event reason %s is not documented in operations.md", r)
	}
	for _, r := range domain.StallReasons() {
		known[string(r)] = true
	}
	for name := range documented {
		assert.Truef(t, known[name], "operations.md documents an Event %s the operator does not record", name)
	}
}

// domainEventReasons reads the domain's source for every EventReason it builds: a literal
// EventReason{"Name"} or EventReason{Constant} of a string constant of the domain.
func domainEventReasons(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../domain/*.go")
	require.NoError(t, err)
	consts := map[string]string{}
	var values []ast.Expr
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, v := range n.Values {
					if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						consts[n.Names[i].Name], _ = strconv.Unquote(lit.Value)
					}
				}
			case *ast.CompositeLit:
				if id, ok := n.Type.(*ast.Ident); ok && id.Name == "EventReason" && len(n.Elts) == 1 {
					values = append(values, n.Elts[0])
				}
			}
			return true
		})
	}
	var out []string
	for _, v := range values {
		switch v := v.(type) {
		case *ast.BasicLit:
			s, err := strconv.Unquote(v.Value)
			require.NoError(t, err)
			out = append(out, s)
		case *ast.Ident:
			s, ok := consts[v.Name]
			require.Truef(t, ok, "EventReason{%s}: not a string constant of the domain", v.Name)
			out = append(out, s)
		default:
			require.Failf(t, "EventReason built from an expression", "%T", v)
		}
	}
	require.NotEmpty(t, out, "the domain names its Event reasons in EventReason literals")
	return out
}
