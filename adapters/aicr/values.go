package aicr

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"strings"

	"go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/cli/values"
	"helm.sh/helm/v3/pkg/getter"
)

// bundleScheme is the URL scheme under which the reader hands bundle files to
// Helm's own values code, so `-f values.yaml -f cluster-values.yaml` is merged
// by exactly the code the bundle's install.sh runs.
const bundleScheme = "aicr-bundle"

var errValuesFile = errors.New("invalid values file")

// fsGetter serves bundle files to Helm's getter interface from an fs.FS.
type fsGetter struct{ fsys fs.FS }

// Get implements getter.Getter.
func (g fsGetter) Get(rawURL string, _ ...getter.Option) (*bytes.Buffer, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("parse bundle url: %w", err)
	}
	data, err := readLimited(g.fsys, strings.TrimPrefix(u.Path, "/"), maxValuesBytes)
	if err != nil {
		return nil, err
	}
	if err := checkSingleMapDocument(data); err != nil {
		return nil, fmt.Errorf("%s: %w", u.Path, err)
	}
	return bytes.NewBuffer(data), nil
}

// mergeValues merges the given bundle files as `helm -f a -f b` does, using
// Helm's values.Options.MergeValues (explicit nulls survive).
func mergeValues(fsys fs.FS, files ...string) (map[string]any, error) {
	opts := values.Options{}
	for _, f := range files {
		opts.ValueFiles = append(opts.ValueFiles, bundleScheme+":///"+f)
	}
	providers := getter.Providers{{
		Schemes: []string{bundleScheme},
		New:     func(...getter.Option) (getter.Getter, error) { return fsGetter{fsys: fsys}, nil },
	}}
	merged, err := opts.MergeValues(providers)
	if err != nil {
		return nil, fmt.Errorf("merge values: %w", err)
	}
	return merged, nil
}

// checkSingleMapDocument rejects a values file with more than one YAML
// document or a top level that is not a map (FORMAT.md section 8). An empty
// file (only a comment header and "---") is an empty map.
func checkSingleMapDocument(data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	docs := 0
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("parse yaml: %w", err)
		}
		if v == nil {
			continue
		}
		docs++
		if docs > 1 {
			return fmt.Errorf("more than one yaml document: %w", errValuesFile)
		}
		if _, ok := v.(map[string]any); !ok {
			return fmt.Errorf("top level is not a map: %w", errValuesFile)
		}
	}
}
