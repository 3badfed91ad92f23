package domain

// AICR's helm deployer waits, after a GPU Operator upgrade, for the new driver and then
// restarts the DRA driver's kubelet plugin: a plugin left running keeps serving the old
// driver's devices and may lose its kubelet registration. Argo CD has no step between two
// Applications, so the operator gives that restart to a person: the DRA driver's step waits,
// before its apply, for an approver's acknowledgement that the restart is done.

const (
	// gpuOperatorComponent is AICR's component that installs the GPU driver.
	gpuOperatorComponent = "gpu-operator"
	// draDriverComponent is AICR's component that runs the DRA kubelet plugin.
	draDriverComponent = "nvidia-dra-driver-gpu"
)

// draRestartAcknowledgement is what the approver of a DRA driver step acknowledges.
const draRestartAcknowledgement = "the DRA driver's kubelet plugin restarted after the upgraded " +
	"GPU Operator's driver became ready on every accelerated node " +
	"(kubectl -n <namespace> rollout restart daemonset <kubelet-plugin>)"

// needsDRARestart reports whether steps[i] is a DRA driver step that runs after an upgrade of
// the GPU Operator in the same transition: the kubelet plugin must restart before it.
func needsDRARestart(steps []Step, i int) bool {
	if steps[i].Component != draDriverComponent || steps[i].Operation == OpRemove {
		return false
	}
	for _, s := range steps[:i] {
		if s.Component == gpuOperatorComponent && s.Operation == OpUpgrade {
			return true
		}
	}
	return false
}

// markDRARestart makes every step that needsDRARestart wait for an acknowledgement before its
// apply.
func markDRARestart(steps []Step) {
	for i := range steps {
		if needsDRARestart(steps, i) {
			steps[i].AcknowledgeBeforeApply = true
		}
	}
}
