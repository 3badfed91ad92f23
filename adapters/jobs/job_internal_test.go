package jobs

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"

	"github.com/NVIDIA/aicr/ports"
)

// TestJob_Placement: a Job runs where its spec's placement says, with the installation's
// tolerations beside the placement's, unless the installation names a node selector of its
// own, which then decides alone.
func TestJob_Placement(t *testing.T) {
	t.Parallel()
	system := &ports.JobPlacement{
		NodeSelector: map[string]string{"node-role.example.com/system": "true"},
		Tolerations:  []ports.JobToleration{{Key: "dedicated", Operator: "Equal", Value: "system", Effect: "NoSchedule"}},
	}
	installTol := corev1.Toleration{Key: "spot", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	systemTol := corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "system", Effect: corev1.TaintEffectNoSchedule}
	tests := []struct {
		name          string
		pod           PodSettings
		placement     *ports.JobPlacement
		wantSelector  map[string]string
		wantTolerance []corev1.Toleration
	}{
		{name: "no placement, no installation selector: anywhere"},
		{name: "placement alone", placement: system,
			wantSelector: system.NodeSelector, wantTolerance: []corev1.Toleration{systemTol}},
		{name: "placement beside the installation's tolerations",
			pod:       PodSettings{Tolerations: []corev1.Toleration{installTol}},
			placement: system, wantSelector: system.NodeSelector, wantTolerance: []corev1.Toleration{installTol, systemTol}},
		{name: "the installation's selector decides alone",
			pod:       PodSettings{NodeSelector: map[string]string{"pool": "aicr"}, Tolerations: []corev1.Toleration{installTol}},
			placement: system, wantSelector: map[string]string{"pool": "aicr"}, wantTolerance: []corev1.Toleration{installTol}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := &Runner{cfg: Config{Namespace: "aicr-jobs", Image: "registry.example.com/aicr@sha256:00", Pod: tt.pod}}
			pod := r.job(ports.JobSpec{Name: "aicr-recipe-1", Kind: ports.JobRecipe, Placement: tt.placement}).Spec.Template.Spec
			assert.Equal(t, tt.wantSelector, pod.NodeSelector)
			assert.Equal(t, tt.wantTolerance, pod.Tolerations)
		})
	}
}
