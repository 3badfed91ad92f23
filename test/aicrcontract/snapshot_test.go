package aicrcontract_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/test/jobexec"
)

type snapshotDoc struct {
	Kind         string         `json:"kind"`
	APIVersion   string         `json:"apiVersion"`
	Metadata     map[string]any `json:"metadata"`
	Measurements []struct {
		Type     string `json:"type"`
		Subtypes []struct {
			Subtype string `json:"subtype"`
		} `json:"subtypes"`
	} `json:"measurements"`
}

// referenceSnapshots returns the snapshots in the reference directory, decoded.
func referenceSnapshots(t *testing.T) map[string]snapshotDoc {
	t.Helper()
	out := map[string]snapshotDoc{}
	for p, raw := range referenceSnapshotTexts(t) {
		var doc snapshotDoc
		require.NoError(t, yaml.Unmarshal([]byte(raw), &doc), p)
		out[p] = doc
	}
	return out
}

// referenceSnapshotTexts returns the snapshots in the reference directory as AICR wrote them:
// YAML files of kind Snapshot, and the snapshot.yaml of the documented snapshot ConfigMaps.
func referenceSnapshotTexts(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range referenceFiles(t, ".yaml") {
		raw, err := os.ReadFile(p)
		require.NoError(t, err)
		var cm struct {
			Kind string            `json:"kind"`
			Data map[string]string `json:"data"`
		}
		if yaml.Unmarshal(raw, &cm) == nil && cm.Kind == "ConfigMap" && cm.Data["snapshot.yaml"] != "" {
			raw = []byte(cm.Data["snapshot.yaml"])
		}
		var doc snapshotDoc
		if yaml.Unmarshal(raw, &doc) == nil && doc.Kind == "Snapshot" {
			out[p] = string(raw)
		}
	}
	require.NotEmpty(t, out, "the reference directory holds no snapshot")
	return out
}

// 2.1: a snapshot is kind Snapshot of aicr.run with measurements of typed subtypes; the
// snapshot the simulator plays has that shape and records the AICR version that collected it.
func TestFact2_1_SnapshotShape(t *testing.T) {
	t.Parallel()
	played, err := os.ReadFile(filepath.Join(jobexec.Root(), "test", "jobexec", "testdata", "snapshot-eks-h100-ubuntu.yaml"))
	require.NoError(t, err)
	var sim snapshotDoc
	require.NoError(t, yaml.Unmarshal(played, &sim))
	snapshots := referenceSnapshots(t)
	snapshots["simulator"] = sim
	for name, doc := range snapshots {
		assert.True(t, strings.HasPrefix(doc.APIVersion, "aicr.run/v1"), "%s: apiVersion %s", name, doc.APIVersion)
		require.NotEmpty(t, doc.Measurements, name)
		for _, m := range doc.Measurements {
			assert.NotEmpty(t, m.Type, name)
			for _, sub := range m.Subtypes {
				assert.NotEmpty(t, sub.Subtype, "%s: %s", name, m.Type)
			}
		}
	}
	assert.Equal(t, "Snapshot", sim.Kind)
	assert.NotEmpty(t, sim.Metadata["version"], "a snapshot records the AICR that collected it")
}
