package docs_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nvidia/aicr-operator/domain"
)

// TestEventsDocumented keeps the Events section of the operations guide and the domain's Event
// reasons in step: each reason the operator records is documented, and each name the section
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
	for _, r := range domain.EventReasons() {
		known[r.String()] = true
		assert.Truef(t, documented[r.String()], "Event reason %s is not documented in operations.md", r)
	}
	for _, r := range domain.StallReasons() {
		known[string(r)] = true
	}
	for name := range documented {
		assert.Truef(t, known[name], "operations.md documents an Event %s the operator does not record", name)
	}
}
