package docs_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flowchart is a Mermaid flowchart in the subset design/diagrams.md writes: subgraphs, nodes
// with an optional quoted label, and arrows with an optional label.
type flowchart struct {
	// labels maps each node's ID to its label (the ID when it has none).
	labels map[string]string
	// groups maps each subgraph's ID to the IDs of the nodes declared in it.
	groups map[string][]string
	arrows []arrow
}

// arrow is one "from --> to" or "from -->|label| to" line.
type arrow struct {
	from, to, label string
}

var (
	mermaidFence   = regexp.MustCompile("(?s)```mermaid\n(.*?)```")
	flowchartStart = regexp.MustCompile(`^flowchart (TB|TD|BT|LR|RL)$`)
	subgraphStart  = regexp.MustCompile(`^subgraph (\w+)(?:\["[^"]+"\])?$`)
	nodeLine       = regexp.MustCompile(`^(\w+)(?:\["([^"]+)"\])?$`)
	arrowLine      = regexp.MustCompile(`^(\w+) -->(?:\|([^|]+)\|)? (\w+)$`)
)

// diagram returns the one Mermaid flowchart of the section titled title in design/diagrams.md.
// A line outside the subset fails the test, so nothing the diagram draws escapes the checks.
func diagram(t *testing.T, title string) flowchart {
	t.Helper()
	blocks := mermaidFence.FindAllStringSubmatch(sectionBody(t, "design/diagrams.md", title), -1)
	require.Len(t, blocks, 1, "section %q of design/diagrams.md holds one mermaid block", title)
	lines := strings.Split(strings.TrimSpace(blocks[0][1]), "\n")
	require.Regexp(t, flowchartStart, strings.TrimSpace(lines[0]), "section %q draws a flowchart", title)
	d := flowchart{labels: map[string]string{}, groups: map[string][]string{}}
	group := ""
	for _, raw := range lines[1:] {
		line := strings.TrimSpace(raw)
		switch m := matchers(line); {
		case line == "" || strings.HasPrefix(line, "%%"):
		case line == "end":
			assert.NotEmpty(t, group, "section %q ends a subgraph it did not open", title)
			group = ""
		case m.subgraph != nil && group == "":
			group = m.subgraph[1]
			d.groups[group] = nil
		case m.arrow != nil:
			d.arrows = append(d.arrows, arrow{from: m.arrow[1], label: m.arrow[2], to: m.arrow[3]})
		case m.node != nil:
			id, label := m.node[1], m.node[2]
			if label == "" {
				label = id
			}
			assert.NotContains(t, d.labels, id, "section %q declares node %s twice", title, id)
			d.labels[id] = label
			if group != "" {
				d.groups[group] = append(d.groups[group], id)
			}
		default:
			t.Errorf("section %q: %q is not a line of the flowchart subset the test reads", title, line)
		}
	}
	assert.Empty(t, group, "section %q leaves subgraph %s open", title, group)
	for _, a := range d.arrows {
		for _, id := range []string{a.from, a.to} {
			_, node := d.labels[id]
			_, sub := d.groups[id]
			assert.True(t, node || sub, "section %q draws an arrow from or to %s, which it does not declare", title, id)
		}
	}
	return d
}

type lineMatch struct {
	subgraph, arrow, node []string
}

func matchers(line string) lineMatch {
	return lineMatch{
		subgraph: subgraphStart.FindStringSubmatch(line),
		arrow:    arrowLine.FindStringSubmatch(line),
		node:     nodeLine.FindStringSubmatch(line),
	}
}
