package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// draDriver is the release whose kubelet plugin restarts after a GPU Operator upgrade.
const draDriver = "nvidia-dra-driver-gpu"

// acknowledgeDRARestart waits for the approved rollout to pause before the DRA driver's step,
// restarts the driver's workloads as its operator would restart the kubelet plugin, and
// acknowledges the restart as the approver.
func (d *demo) acknowledgeDRARestart(ctx context.Context, rollout string) error {
	stage("The GPU Operator was upgraded: the rollout pauses before %s until the approver acknowledges the DRA kubelet plugin's restart", draDriver)
	var ro aicrv1alpha1.RuntimeRollout
	if err := poll(ctx, func() (bool, error) {
		err := d.admin.Get(ctx, client.ObjectKey{Name: rollout}, &ro)
		if outcome := ro.Labels[aicrv1alpha1.LabelOutcome]; outcome != "" {
			return false, fmt.Errorf("rollout %s ended %s without waiting for the DRA kubelet plugin's restart", rollout, outcome)
		}
		return ro.Status.Phase == aicrv1alpha1.PhaseAwaitingAcknowledgement, err
	}); err != nil {
		return fmt.Errorf("waiting for rollout %s to await an acknowledgement: %w", rollout, err)
	}
	progress("rollout %s %s: %s", rollout, ro.Status.Phase, ro.Status.Message)
	if err := d.restartDRADriver(ctx); err != nil {
		return err
	}
	plugin := filepath.Join(d.binaries, "kubectl-aicr")
	stage("kubectl aicr acknowledge %s --as %s", rollout, approverUser)
	out, err := output(ctx, d.adminKC, plugin, "acknowledge", rollout, "--as", approverUser)
	indent(out)
	return err
}

// restartDRADriver restarts the DRA driver release's Deployments and DaemonSets the way
// kubectl rollout restart does (a new pod template annotation); with the stand-in engine no
// workload runs and there is nothing to restart.
func (d *demo) restartDRADriver(ctx context.Context) error {
	byRelease := client.MatchingLabels{"app.kubernetes.io/instance": draDriver}
	at := time.Now().UTC().Format(time.RFC3339)
	var deployments appsv1.DeploymentList
	var daemonSets appsv1.DaemonSetList
	if err := d.admin.List(ctx, &deployments, byRelease); err != nil {
		return err
	}
	if err := d.admin.List(ctx, &daemonSets, byRelease); err != nil {
		return err
	}
	var restarted int
	for i := range deployments.Items {
		if err := d.restart(ctx, "deployment", &deployments.Items[i], &deployments.Items[i].Spec.Template.Annotations, at); err != nil {
			return err
		}
		restarted++
	}
	for i := range daemonSets.Items {
		if err := d.restart(ctx, "daemonset", &daemonSets.Items[i], &daemonSets.Items[i].Spec.Template.Annotations, at); err != nil {
			return err
		}
		restarted++
	}
	if restarted == 0 {
		progress("no workload of %s runs here (the stand-in engine creates none): nothing to restart", draDriver)
	}
	return nil
}

// restart sets the kubectl.kubernetes.io/restartedAt pod template annotation of obj, a kind
// whose template annotations are at annotations.
func (d *demo) restart(ctx context.Context, kind string, obj client.Object, annotations *map[string]string, at string) error {
	patch := client.MergeFrom(obj.DeepCopyObject().(client.Object))
	if *annotations == nil {
		*annotations = map[string]string{}
	}
	(*annotations)["kubectl.kubernetes.io/restartedAt"] = at
	if err := d.admin.Patch(ctx, obj, patch); err != nil {
		return fmt.Errorf("restart %s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
	}
	progress("$ kubectl -n %s rollout restart %s %s (the DRA kubelet plugin's stand-in)", obj.GetNamespace(), kind, obj.GetName())
	return nil
}
