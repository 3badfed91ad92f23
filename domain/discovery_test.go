package domain_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/NVIDIA/aicr/domain"
)

// TestPlacementLabelKeysAreEverythingCheckPlacementReads (RES-2, RES-3): nodes trimmed to
// pl.LabelKeys() are discovered as the whole nodes are, for every stall and for success.
func TestPlacementLabelKeysAreEverythingCheckPlacementReads(t *testing.T) {
	pl := domain.Placement{System: domain.NodeSelector{"pool": "system"}, Accelerated: domain.NodeSelector{"pool": "gpu", "zone": "a"}}
	assert.Equal(t, []string{"kubernetes.io/os", "node.kubernetes.io/instance-type", "nvidia.com/gpu.product", "pool", "zone"}, pl.LabelKeys())
	node := func(name string, labels map[string]string) domain.Node {
		labels["kubernetes.io/hostname"], labels["topology.kubernetes.io/region"] = name, "us-west-2"
		return domain.Node{Name: name, Labels: labels}
	}
	trim := func(nodes []domain.Node) []domain.Node {
		out := make([]domain.Node, 0, len(nodes))
		for _, n := range nodes {
			kept := map[string]string{}
			for _, k := range pl.LabelKeys() {
				if v, ok := n.Labels[k]; ok {
					kept[k] = v
				}
			}
			out = append(out, domain.Node{Name: n.Name, Labels: kept})
		}
		return out
	}
	sys := node("sys-1", map[string]string{"pool": "system"})
	for name, nodes := range map[string][]domain.Node{
		"both groups":    {sys, node("gpu-1", map[string]string{"pool": "gpu", "zone": "a", "nvidia.com/gpu.product": "H100"})},
		"no accelerated": {sys, node("gpu-1", map[string]string{"pool": "gpu", "zone": "b"})},
		"overlap":        {node("x", map[string]string{"pool": "gpu", "zone": "a"}), sys},
		"heterogeneous":  {sys, node("gpu-1", map[string]string{"pool": "gpu", "zone": "a", "kubernetes.io/os": "linux"}), node("gpu-2", map[string]string{"pool": "gpu", "zone": "a", "kubernetes.io/os": "windows"})},
		"instance types": {sys, node("gpu-1", map[string]string{"pool": "gpu", "zone": "a", "node.kubernetes.io/instance-type": "p5"}), node("gpu-2", map[string]string{"pool": "gpu", "zone": "a", "node.kubernetes.io/instance-type": "p4d"})},
		"no nodes":       nil,
	} {
		assert.Equal(t, domain.CheckPlacement(nodes, pl), domain.CheckPlacement(trim(nodes), pl), name)
	}
}

// TestCheckSelectorsNamesTheInvalidGroup: a selector that is not a valid label selector stalls
// InvalidPlacement naming its group, before any Node is read.
func TestCheckSelectorsNamesTheInvalidGroup(t *testing.T) {
	assert.Nil(t, domain.CheckSelectors(domain.Placement{System: domain.NodeSelector{"pool": "system"}, Accelerated: domain.NodeSelector{"pool": "gpu"}}))
	s := domain.CheckSelectors(domain.Placement{System: domain.NodeSelector{"pool": "system"}, Accelerated: domain.NodeSelector{"pool": "bad value!"}})
	if assert.NotNil(t, s) {
		assert.Equal(t, domain.StallInvalidPlacement, s.Reason())
		assert.Contains(t, s.Message(), "placement.accelerated.nodeSelector")
	}
	s = domain.CheckSelectors(domain.Placement{Accelerated: domain.NodeSelector{"pool": "gpu"}})
	if assert.NotNil(t, s) {
		assert.Contains(t, s.Message(), "placement.system.nodeSelector: at least one entry is required")
	}
}
