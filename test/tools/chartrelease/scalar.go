package main

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// setScalar returns src with the scalar at path (mapping keys from the document's root)
// replaced by value, double-quoted. Nothing else of src changes: the scalar is found by its
// line and column and replaced in the text, so comments and layout stay as written.
func setScalar(src []byte, path []string, value string) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) != 1 {
		return nil, fmt.Errorf("not one YAML document")
	}
	n := doc.Content[0]
	for _, key := range path {
		n = mappingValue(n, key)
		if n == nil {
			return nil, fmt.Errorf("no %s", strings.Join(path, "."))
		}
	}
	if n.Kind != yaml.ScalarNode {
		return nil, fmt.Errorf("%s is not a scalar", strings.Join(path, "."))
	}
	written, err := scalarText(n)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", strings.Join(path, "."), err)
	}
	lines := bytes.Split(src, []byte("\n"))
	line := lines[n.Line-1]
	start := n.Column - 1
	if !bytes.HasPrefix(line[start:], []byte(written)) {
		return nil, fmt.Errorf("%s: line %d does not hold %s at column %d", strings.Join(path, "."), n.Line, written, n.Column)
	}
	edited := append([]byte{}, line[:start]...)
	edited = append(edited, strconv.Quote(value)...)
	lines[n.Line-1] = append(edited, line[start+len(written):]...)
	return bytes.Join(lines, []byte("\n")), nil
}

// mappingValue returns the value of key in the mapping n, or nil.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// scalarText is the text a one-line plain or quoted scalar occupies in the source.
func scalarText(n *yaml.Node) (string, error) {
	switch n.Style {
	case 0:
		return n.Value, nil
	case yaml.DoubleQuotedStyle:
		return strconv.Quote(n.Value), nil
	case yaml.SingleQuotedStyle:
		return "'" + strings.ReplaceAll(n.Value, "'", "''") + "'", nil
	case yaml.TaggedStyle, yaml.LiteralStyle, yaml.FoldedStyle, yaml.FlowStyle:
	}
	return "", fmt.Errorf("a scalar of style %v is not edited in place", n.Style)
}
