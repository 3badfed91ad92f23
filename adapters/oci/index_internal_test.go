package oci

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/ports"
)

// TestReadIndexEntries reads one chart's versions from the index layouts Helm reads, holding
// only that chart's block: Helm's own layout with sequence items at the key's
// indentation, deeper indentation, quoted keys, comments, JSON, and charts whose names share a
// prefix or appear only inside another chart's entries.
func TestReadIndexEntries(t *testing.T) {
	helm := `apiVersion: v1
entries:
  gpu-operator-extras:
  - name: gpu-operator-extras
    version: 9.9.9
    urls:
    - https://charts.example.com/x.tgz
  gpu-operator:
  - name: gpu-operator
    version: v25.3.0
    digest: abc
    urls:
    - gpu-operator-v25.3.0.tgz
  # a comment between versions
  - name: gpu-operator
    version: v25.10.0
    urls:
    - gpu-operator-v25.10.0.tgz
  network-operator:
  - name: gpu-operator
    version: v1.0.0
    urls:
    - https://elsewhere.example.com/n.tgz
generated: "2026-01-01T00:00:00Z"
`
	for _, tc := range []struct {
		name, index string
		want        []string
	}{
		{"helm layout", helm, []string{"v25.3.0", "v25.10.0"}},
		{"indented sequences", "entries:\n    other:\n        - version: 1.0.0\n    gpu-operator:\n        - version: v25.3.0\n          urls: [a.tgz]\napiVersion: v1\n", []string{"v25.3.0"}},
		{"quoted keys", "entries:\n  \"gpu-operator\":\n  - version: v1\n  'other':\n  - version: v2\n", []string{"v1"}},
		{"last key, no newline", "entries:\n  gpu-operator:\n  - version: v3", []string{"v3"}},
		{"JSON", `  {"apiVersion":"v1","entries":{"gpu-operator":[{"version":"v4","urls":["a.tgz"]}],"x":[]}}`, []string{"v4"}},
		{"absent", "entries:\n  network-operator:\n  - name: gpu-operator\n    version: v1\n", nil},
		{"entries elsewhere than the top level", "other:\n  entries:\n    gpu-operator:\n    - version: v1\n", nil},
		{"empty", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readIndexEntries(strings.NewReader(tc.index), "gpu-operator")
			require.NoError(t, err)
			var versions []string
			for _, e := range got {
				versions = append(versions, e.Version)
			}
			require.Equal(t, tc.want, versions)
		})
	}
}

// TestReadIndexEntriesRefuses refuses an index that goes past maxIndexBytes before the chart's
// block has ended, and a chart block that is not YAML.
func TestReadIndexEntriesRefuses(t *testing.T) {
	big := "entries:\n  gpu-operator:\n  - version: v1\n" + strings.Repeat("#", maxIndexBytes)
	_, err := readIndexEntries(strings.NewReader(big), "gpu-operator")
	require.ErrorIs(t, err, ports.ErrArchiveRejected)

	_, err = readIndexEntries(strings.NewReader("entries:\n  gpu-operator:\n  - version: [\n"), "gpu-operator")
	require.Error(t, err)
	require.False(t, errors.Is(err, ports.ErrArchiveRejected))
}
