package aicr

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"
)

var errValuesFile = errors.New("invalid values file")

// mergeValues merges the given bundle files as `helm -f a -f b` does (Helm
// v3 and v4 values.Options.MergeValues): each file is parsed with sigs.k8s.io/yaml
// into a map and coalesced into the result with mergeHelmMaps, so explicit
// nulls survive. The fidelity test compares it with Helm's own code.
func mergeValues(fsys fs.FS, files ...string) (map[string]any, error) {
	base := map[string]any{}
	for _, f := range files {
		data, err := readLimited(fsys, f, maxValuesBytes)
		if err != nil {
			return nil, fmt.Errorf("merge values: %w", err)
		}
		if err := checkSingleMapDocument(data); err != nil {
			return nil, fmt.Errorf("merge values: %s: %w", f, err)
		}
		current := map[string]any{}
		if err := sigsyaml.Unmarshal(data, &current); err != nil {
			return nil, fmt.Errorf("merge values: failed to parse %s: %w", f, err)
		}
		base = mergeHelmMaps(base, current)
	}
	return base, nil
}

// mergeHelmMaps is Helm v3 mergeMaps (pkg/cli/values): a key of b replaces
// the key of a unless both values are maps, which are merged recursively; a
// list or a null in b replaces whatever a holds. Neither argument is changed.
func mergeHelmMaps(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if bm, ok := v.(map[string]any); ok {
			if am, ok := out[k].(map[string]any); ok {
				out[k] = mergeHelmMaps(am, bm)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// checkSingleMapDocument rejects a values file with more than one YAML
// document, empty ones included, or a top level that is neither a map nor empty
// (FORMAT.md section 8): Helm v3 skips empty and null documents, Helm v4 reads
// only the first and refuses "--- ~", so such a file would deploy differently
// with each. A file of only a comment header and "---" is an empty map.
func checkSingleMapDocument(data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for docs := 0; ; docs++ {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("parse yaml: %w", err)
		}
		if docs > 0 {
			return fmt.Errorf("more than one yaml document: %w", errValuesFile)
		}
		if len(doc.Content) == 0 {
			continue
		}
		if top := doc.Content[0]; top.Tag == "!!null" {
			if top.Value != "" {
				return fmt.Errorf("top level is %s, not a map: %w", top.Value, errValuesFile)
			}
			continue
		}
		var v any
		if err := doc.Decode(&v); err != nil {
			return fmt.Errorf("parse yaml: %w", err)
		}
		if _, ok := v.(map[string]any); !ok {
			return fmt.Errorf("top level is not a map: %w", errValuesFile)
		}
	}
}
