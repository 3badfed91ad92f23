package jobs

import (
	"fmt"
	"slices"
	"strings"
	"testing/fstest"

	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/ports"
)

// ArtifactKeys are the data keys AICR v1 stores a -o cm:// artifact under, one per output
// format: snapshot.yaml (YAML, the default of snapshot and recipe), snapshot.json (JSON: the
// upgrade-check report with --format json and the CTRF report of validate) and snapshot.txt
// (table). AICR names the key snapshot.<ext> whatever the command; it writes exactly one of
// them, next to the keys format and timestamp.
var ArtifactKeys = []string{"snapshot.yaml", "snapshot.json", "snapshot.txt"}

// VersionUnknown is the app.kubernetes.io/version AICR v1 labels an output ConfigMap with when
// the value it wrote does not carry its own version header: every artifact the operator asks
// for (snapshot in agent mode, recipe, upgrade-check report, CTRF report). Only a snapshot
// the CLI relays from an agent carries the document's metadata.version as the label.
const VersionUnknown = "unknown"

// outputFiles returns an output ConfigMap's data as files, its one artifact under
// ports.JobArtifactFile whichever of ArtifactKeys holds it; more than one artifact key is an
// error (AICR writes one), none leaves the artifact absent (the caller says what is missing).
func outputFiles(data map[string]string) (fstest.MapFS, error) {
	files := fstest.MapFS{}
	var found []string
	for k, v := range data {
		name := k
		if slices.Contains(ArtifactKeys, k) {
			found = append(found, k)
			name = ports.JobArtifactFile
		}
		files[name] = &fstest.MapFile{Data: []byte(v), Mode: 0o444}
	}
	if len(found) > 1 {
		return nil, fmt.Errorf("output holds %d artifacts (%s), AICR writes one", len(found), strings.Join(found, ", "))
	}
	return files, nil
}

// artifactVersion is the AICR version an artifact records about the binary that wrote it:
// metadata.version of a snapshot or a RecipeResult, results.tool.version of a CTRF report.
// Empty when the artifact records none (the upgrade-check report has no version field) or is
// not a YAML or JSON document (a table).
func artifactVersion(data []byte) string {
	var doc struct {
		Metadata struct {
			Version string `json:"version"`
		} `json:"metadata"`
		Results struct {
			Tool struct {
				Version string `json:"version"`
			} `json:"tool"`
		} `json:"results"`
	}
	if yaml.Unmarshal(data, &doc) != nil {
		return ""
	}
	if doc.Metadata.Version != "" {
		return doc.Metadata.Version
	}
	return doc.Results.Tool.Version
}

// reportedVersion is the AICR version an output ConfigMap reports: the one its artifact
// records, else its app.kubernetes.io/version label unless that is VersionUnknown. A label
// that names a version other than the artifact's is refused: one of the two was not written by
// the AICR that ran. Empty when neither records one; the version of such an output is the
// pinned image's, which the chart's admission policy makes the only image a Job runs.
func reportedVersion(labels, data map[string]string) (string, error) {
	label := labels[VersionLabel]
	if label == VersionUnknown {
		label = ""
	}
	var artifact string
	for _, k := range ArtifactKeys {
		if v, ok := data[k]; ok {
			artifact = artifactVersion([]byte(v))
		}
	}
	switch {
	case artifact == "":
		return label, nil
	case label != "" && strings.TrimPrefix(label, "v") != strings.TrimPrefix(artifact, "v"):
		return "", fmt.Errorf("output labelled AICR version %q holds an artifact of AICR %q", label, artifact)
	}
	return artifact, nil
}
