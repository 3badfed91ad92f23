package jobexec

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/ports"
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

// OutputLabels are the labels AICR v1 sets on a -o cm:// ConfigMap (pkg/serializer/configmap.go):
// app.kubernetes.io/name aicr, and component and version from the serialized value's own
// GetKind and GetMetadata, which no value the operator asks for has (agent-mode snapshot,
// RecipeResult, upgrade-check report, CTRF report): they fall back to the default kind
// Snapshot and version unknown. Only a snapshot the CLI relays from its own agent is labelled
// with the document's kind and version, and the operator never relays.
func OutputLabels() map[string]string {
	return map[string]string{"app.kubernetes.io/name": "aicr", "app.kubernetes.io/component": "Snapshot",
		jobs.VersionLabel: jobs.VersionUnknown}
}

// OutputData is the data AICR v1 writes into the Job's -o cm:// ConfigMap for res at now
// (artifactData): what the executor writes as the Job's Pod.
func OutputData(job *batchv1.Job, res Result, now time.Time) (map[string]string, error) {
	return artifactData(job, res, now)
}

// dnsLabel is a Kubernetes namespace name; dnsSubdomain a ConfigMap name.
var (
	dnsLabel     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

// RefusedOutput plays AICR v1 checking a Job's -o before it writes anything to the cluster:
// a cm:// destination must be cm://<namespace>/<name> with a valid namespace and ConfigMap
// name (ParseConfigMapURI), and an upgrade-check --format table cannot go to a ConfigMap;
// either is INVALID_REQUEST, exit 2. So is a --format other than yaml, json or table. Nil when
// AICR would write the output.
func RefusedOutput(job *batchv1.Job) *Result {
	out := argValue(AICRArgs(job), "-o")
	format := outputFormat(job)
	refuse := func(msg string) *Result {
		r := failure(2, "[INVALID_REQUEST] "+msg)
		return &r
	}
	if !slices.Contains([]string{"yaml", "json", "table"}, format) {
		return refuse(fmt.Sprintf("invalid --format %q: want yaml, json or table", format))
	}
	rest, ok := strings.CutPrefix(out, "cm://")
	if !ok {
		return nil
	}
	ns, name, found := strings.Cut(rest, "/")
	if !found || len(ns) > 63 || !dnsLabel.MatchString(ns) || len(name) > 253 || !dnsSubdomain.MatchString(name) {
		return refuse(fmt.Sprintf("invalid ConfigMap URI %q: want cm://<namespace>/<name>", out))
	}
	if format == "table" {
		return refuse("table output does not support ConfigMap destinations")
	}
	return nil
}
