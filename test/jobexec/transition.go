package jobexec

import (
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/ports"
)

// SafeUpgradeCheck is f's upgrade-check result rating the one component a gpu-operator override
// changes safe.
func (f Fixture) SafeUpgradeCheck() Result {
	res := f.Result(ports.JobUpgradeCheck)
	res.Data[jobs.OutputKey] = `{"from":"` + ports.JobInputsDir + `/from.yaml","to":"` + ports.JobInputsDir + `/recipe.yaml",` +
		`"deployer":"argocd-helm",` +
		`"components":[{"component":"gpu-operator","change":"version","from":"v25.10.1","to":"v25.10.1",` +
		`"verdict":"safe","notes":"no version change","reason":"recorded","breaking":false,"downgrade":false,` +
		`"failsRun":false}],"summary":{"components":1,"failing":0}}`
	return res
}

// TransitionBehavior plays a transition made by a gpu-operator override: f's render, the
// overridden render for a bundle Job given a --set, and an upgrade check rating it safe.
func TransitionBehavior(f, overridden Fixture) Behavior {
	return func(job *batchv1.Job, in *corev1.ConfigMap) Result {
		kind := ports.JobKind(job.Labels[jobs.KindLabel])
		switch {
		case kind == ports.JobUpgradeCheck:
			return f.SafeUpgradeCheck()
		case kind == ports.JobBundle && strings.Contains(strings.Join(AICRArgs(job), " "), "--set"):
			return overridden.Behavior()(job, in)
		}
		return f.Behavior()(job, in)
	}
}
