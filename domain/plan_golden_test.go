package domain_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/domain"
)

// TestBuildPlan_ReleasesMatchGoldens checks, for every v1-layout fixture, that
// the plan's releases equal expected-releases.json: order, name, namespace,
// chart repoURL/name/version, values and valuesDigest.
func TestBuildPlan_ReleasesMatchGoldens(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{
		"v1-layout-synthetic-eks-h100-ubuntu-training-kubeflow",
		"upgrade-from-v0.10.16-eks-h100-ubuntu-training-kubeflow/v1-synthetic",
		"upgrade-set-overrides-eks-h100-ubuntu-training-kubeflow/v1-synthetic",
	} {
		t.Run(dir, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join(fixtures, dir, "expected-releases.json"))
			require.NoError(t, err)
			var golden struct {
				Releases []struct {
					Order     int    `json:"order"`
					Name      string `json:"name"`
					Namespace string `json:"namespace"`
					Chart     struct {
						RepoURL string `json:"repoURL"`
						Name    string `json:"name"`
						Version string `json:"version"`
					} `json:"chart"`
					Values       any    `json:"values"`
					ValuesDigest string `json:"valuesDigest"`
				} `json:"releases"`
			}
			require.NoError(t, json.Unmarshal(data, &golden))
			p := loadPlan(t, dir)
			require.Len(t, p.Releases, len(golden.Releases))
			for i, want := range golden.Releases {
				got := p.Releases[i]
				assert.Equal(t, i+1, want.Order)
				assert.Equal(t, want.Name, got.ID)
				assert.Equal(t, want.Namespace, got.Namespace, want.Name)
				assert.Equal(t, want.Chart.RepoURL, got.Chart.Repository, want.Name)
				assert.Equal(t, want.Chart.Name, got.Chart.Name, want.Name)
				assert.Equal(t, want.Chart.Version, got.Chart.Version, want.Name)
				encoded, err := json.Marshal(got.Values)
				require.NoError(t, err)
				var values any
				require.NoError(t, json.Unmarshal(encoded, &values))
				assert.Equal(t, want.Values, values, want.Name)
				digest, err := domain.Digest(got.Values)
				require.NoError(t, err)
				assert.Equal(t, want.ValuesDigest, digest, want.Name)
			}
		})
	}
}
