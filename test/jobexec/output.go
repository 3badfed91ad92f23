package jobexec

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"

	"github.com/nvidia/aicr-operator/adapters/jobs"
	"github.com/nvidia/aicr-operator/ports"
)

// outputFormat is the format AICR v1 serializes a Job's -o cm:// artifact in: JSON for
// validate (its CLI always writes the CTRF report as JSON) and for --format/-t json, else
// YAML, the default of snapshot and recipe.
func outputFormat(job *batchv1.Job) string {
	if ports.JobKind(job.Labels[jobs.KindLabel]) == ports.JobValidate {
		return "json"
	}
	args := AICRArgs(job)
	for i, a := range args {
		switch {
		case (a == "--format" || a == "-t") && i+1 < len(args):
			return args[i+1]
		case strings.HasPrefix(a, "--format="):
			return strings.TrimPrefix(a, "--format=")
		}
	}
	return "yaml"
}

// artifactData is the data AICR v1 writes into a -o cm:// ConfigMap: exactly the artifact under
// snapshot.<ext> (the key is named so for every command), format and timestamp (RFC 3339).
// The artifact is res.Data's jobs.OutputKey entry, with the version of the AICR that plays
// the Job recorded where AICR records it (artifactWithVersion); res.Data's other keys are
// kept, so a test can still write a malformed output.
func artifactData(job *batchv1.Job, res Result, now time.Time) (map[string]string, error) {
	artifact, ok := res.Data[jobs.OutputKey]
	if !ok {
		return res.Data, nil
	}
	format := outputFormat(job)
	ext := map[string]string{"yaml": "yaml", "json": "json", "table": "txt"}[format]
	if ext == "" {
		return nil, fmt.Errorf("aicr would refuse output format %q", format)
	}
	stamped, err := artifactWithVersion(artifact, format, res.Version)
	if err != nil {
		return nil, err
	}
	data := map[string]string{"snapshot." + ext: stamped, "format": format, "timestamp": now.UTC().Format(time.RFC3339)}
	for k, v := range res.Data {
		if k != jobs.OutputKey {
			data[k] = v
		}
	}
	return data, nil
}

// artifactWithVersion records version in the artifact as the AICR binary of that version does:
// metadata.version of a Kind with a header (Snapshot, RecipeResult), results.tool.version of a
// CTRF report. An artifact without a version field (the upgrade-check report), one already
// recording version, or an empty version is returned unchanged.
func artifactWithVersion(artifact, format, version string) (string, error) {
	var doc map[string]any
	if version == "" || yaml.Unmarshal([]byte(artifact), &doc) != nil || doc == nil {
		return artifact, nil
	}
	var holder map[string]any
	switch {
	case slices.Contains([]any{"Snapshot", "RecipeResult"}, doc["kind"]):
		holder = child(doc, "metadata")
	case doc["reportFormat"] == "CTRF":
		holder = child(child(doc, "results"), "tool")
	default:
		return artifact, nil
	}
	if holder["version"] == version {
		return artifact, nil
	}
	holder["version"] = version
	var out []byte
	var err error
	if format == "json" {
		out, err = json.MarshalIndent(doc, "", "  ")
	} else {
		out, err = yaml.Marshal(doc)
	}
	if err != nil {
		return "", fmt.Errorf("record version in artifact: %w", err)
	}
	return string(out), nil
}

// child returns m[key] as a map, creating it when absent.
func child(m map[string]any, key string) map[string]any {
	c, ok := m[key].(map[string]any)
	if !ok {
		c = map[string]any{}
		m[key] = c
	}
	return c
}
