package shared

import (
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/ports"
)

// JobPlacement places a job on a node group of the ClusterRuntime: its node selector and
// tolerations. The snapshot agent runs on the accelerated group, so it reads a GPU node; every
// other AICR job and `aicr validate` on the system group, so neither the Jobs' credentials nor
// the validator's cluster-admin token ever sit on a node that runs the cluster's workloads.
func JobPlacement(group aicrv1alpha1.NodeGroup) *ports.JobPlacement {
	pl := &ports.JobPlacement{NodeSelector: map[string]string{}}
	for k, v := range group.NodeSelector {
		pl.NodeSelector[k] = string(v)
	}
	for _, t := range group.Tolerations {
		pl.Tolerations = append(pl.Tolerations, ports.JobToleration{Key: t.Key, Operator: string(t.Operator), Value: t.Value, Effect: string(t.Effect)})
	}
	return pl
}
