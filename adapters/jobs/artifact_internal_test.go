package jobs

import (
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/ports"
)

// AICR v1 stores its one artifact under snapshot.<ext> for every command; Output hands it on
// under ports.JobArtifactFile whichever key held it.
func TestOutputFilesTakesTheArtifactFromAnyOfAICRsKeys(t *testing.T) {
	for _, key := range ArtifactKeys {
		t.Run(key, func(t *testing.T) {
			files, err := outputFiles(map[string]string{key: "doc", "format": "json", "timestamp": "2026-12-02T12:00:00Z"})
			require.NoError(t, err)
			data, err := fs.ReadFile(files, ports.JobArtifactFile)
			require.NoError(t, err)
			assert.Equal(t, "doc", string(data))
			format, err := fs.ReadFile(files, "format")
			require.NoError(t, err)
			assert.Equal(t, "json", string(format))
			_, err = fs.Stat(files, key)
			assert.ErrorIs(t, err, fs.ErrNotExist, "the artifact is not also under AICR's key")
		})
	}
	t.Run("two artifacts", func(t *testing.T) {
		_, err := outputFiles(map[string]string{"snapshot.yaml": "a", "snapshot.json": "b"})
		assert.ErrorContains(t, err, "holds 2 artifacts")
	})
	t.Run("no artifact", func(t *testing.T) {
		files, err := outputFiles(map[string]string{"format": "yaml"})
		require.NoError(t, err)
		_, err = fs.Stat(files, ports.JobArtifactFile)
		assert.ErrorIs(t, err, fs.ErrNotExist)
	})
}

// The version comes from the artifact; AICR v1 labels its outputs "unknown".
func TestReportedVersion(t *testing.T) {
	snapshot := "kind: Snapshot\napiVersion: aicr.run/v1\nmetadata:\n  version: 1.1.0\n"
	ctrf := `{"reportFormat":"CTRF","results":{"tool":{"name":"aicr","version":"v1.1.0"}}}`
	report := `{"summary":{"components":0,"failing":0},"components":[]}`
	for _, tt := range []struct {
		name, label, key, data, want, err string
	}{
		{name: "snapshot metadata.version, label unknown", label: VersionUnknown, key: "snapshot.yaml", data: snapshot, want: "1.1.0"},
		{name: "CTRF results.tool.version", label: VersionUnknown, key: "snapshot.json", data: ctrf, want: "v1.1.0"},
		{name: "upgrade-check report records none", label: VersionUnknown, key: "snapshot.json", data: report, want: ""},
		{name: "relayed snapshot's label agrees", label: "v1.1.0", key: "snapshot.yaml", data: snapshot, want: "1.1.0"},
		{name: "label alone", label: "1.2.0", key: "snapshot.json", data: report, want: "1.2.0"},
		{name: "label disagrees with the artifact", label: "1.2.0", key: "snapshot.yaml", data: snapshot, err: `labelled AICR version "1.2.0" holds an artifact of AICR "1.1.0"`},
		{name: "table output records none", label: VersionUnknown, key: "snapshot.txt", data: "COMPONENT  VERDICT\n", want: ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := reportedVersion(map[string]string{VersionLabel: tt.label}, map[string]string{tt.key: tt.data})
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
