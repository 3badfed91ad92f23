package configdoc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/domain"
)

func TestSnapshotFacts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, snapshot string
		want           domain.SnapshotFacts
		reason         domain.StallReason
	}{
		{"eks h100 ubuntu", `apiVersion: aicr.run/v1
kind: Snapshot
metadata: {version: 1.1.0}
measurements:
- {type: K8s, subtypes: [{subtype: server, data: {version: v1.33.5-eks-3025e55}}]}
- {type: GPU, subtypes: [{subtype: hardware, data: {product: NVIDIA-GB200}}]}
- {type: OS, subtypes: [{subtype: release, data: {ID: ubuntu}}]}
`, domain.SnapshotFacts{"service": "eks", "accelerator": "gb200", "os": "ubuntu"}, ""},
		{"gke from the provider id, nothing else measured", `apiVersion: aicr.run/v1
kind: Snapshot
metadata: {version: 1.1.0}
measurements:
- {type: K8s, subtypes: [{subtype: node, data: {providerID: gce://project/zone/node}}]}
`, domain.SnapshotFacts{"service": "gke"}, ""},
		{"legacy apiVersion", "apiVersion: aicr.nvidia.com/v1alpha1\nkind: Snapshot\nmetadata: {version: 0.11.1}\n",
			nil, domain.StallAICRArtifactUnsupported},
		{"unsupported version", "apiVersion: aicr.run/v1\nkind: Snapshot\nmetadata: {version: 2.0.0}\n",
			nil, domain.StallAICRArtifactUnsupported},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			facts, stall, err := SnapshotFacts([]byte(tc.snapshot))
			require.NoError(t, err)
			if tc.reason != "" {
				require.NotNil(t, stall)
				assert.Equal(t, tc.reason, stall.Reason())
				return
			}
			assert.Nil(t, stall)
			assert.Equal(t, tc.want, facts)
		})
	}
}
