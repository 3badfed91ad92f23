package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"sigs.k8s.io/yaml"
)

// The values of -o/--output that describe and plan accept.
const (
	outputText = "text"
	outputJSON = "json"
	outputYAML = "yaml"
)

// ErrOutputFormat refuses an -o/--output other than text, json or yaml.
var ErrOutputFormat = errors.New(`--output must be "text", "json" or "yaml"`)

// validateOutput checks -o/--output (describe, plan).
func validateOutput(o *Options) error {
	switch o.flags.output {
	case outputText, outputJSON, outputYAML:
		return nil
	default:
		return fmt.Errorf("%w, not %q", ErrOutputFormat, o.flags.output)
	}
}

// writeStructured writes v as indented JSON or as YAML with the same field names.
func writeStructured(w io.Writer, format string, v any) error {
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", format, err)
	}
	if format == outputYAML {
		if raw, err = yaml.JSONToYAML(raw); err != nil {
			return fmt.Errorf("encode yaml: %w", err)
		}
	} else {
		raw = append(raw, '\n')
	}
	if _, err := w.Write(raw); err != nil {
		return fmt.Errorf("write %s: %w", format, err)
	}
	return nil
}
