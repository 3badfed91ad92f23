package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/test/e2e/cluster"
)

// degraded is the release whose upgraded pods kwok fails in the approved rollout with the real
// Argo CD (its stand-in Deployment gives up after progressDeadlineSeconds and Argo CD reports
// it Degraded), and degradedTimeout its step timeout (rollout.componentStepTimeouts), short so
// the walkthrough sees the rollout stall.
var degraded = client.ObjectKey{Namespace: "gpu-operator", Name: "gpu-operator"}

const (
	degradedTimeout = 45 * time.Second
	// degradedStage names the kwok Stage that fails the upgraded pods.
	degradedStage = "e2e-fail-upgraded-gpu-operator"
)

// failUpgradedPods makes kwok crash-loop every pod of the degraded release that its current
// ReplicaSet did not create, as a driver upgrade that crash-loops on this cluster would: the
// running pods stay, the approved upgrade's pods fail.
func (d *demo) failUpgradedPods(ctx context.Context) error {
	stage("Break %s's upgrade: kwok crash-loops every pod of the release that its running ReplicaSet did not create (a kwok Stage)", degraded.Name)
	var pods corev1.PodList
	if err := d.admin.List(ctx, &pods, client.InNamespace(degraded.Namespace),
		client.MatchingLabels{"app.kubernetes.io/instance": degraded.Name}); err != nil {
		return err
	}
	var running []string
	for _, p := range pods.Items {
		if h := p.Labels[appsv1.DefaultDeploymentUniqueLabelKey]; p.Status.Phase == corev1.PodRunning && !slices.Contains(running, h) {
			running = append(running, h)
		}
	}
	if len(running) == 0 {
		return fmt.Errorf("no running pod of %s to keep", degraded)
	}
	progress("kwok crash-loops the pods of %s whose pod-template-hash is not %s", degraded, strings.Join(running, ", "))
	return d.argo.FailPods(ctx, degradedStage,
		cluster.PodSelector{Key: ".metadata.namespace", Operator: "In", Values: []string{degraded.Namespace}},
		cluster.PodSelector{Key: `.metadata.labels["app.kubernetes.io/instance"]`, Operator: "In", Values: []string{degraded.Name}},
		cluster.PodSelector{Key: `.metadata.labels["pod-template-hash"]`, Operator: "NotIn", Values: running})
}

// stallOnDegraded waits for the approved rollout to fail at the degraded release's step,
// prints how its Remove step went and what the runtime and the rollout say, then fixes the cause and asks for a retry
// (CR-11): it returns the retry's rollout, awaiting a new approval.
func (d *demo) stallOnDegraded(ctx context.Context, rollout string, removal *removalWatch) (string, error) {
	stage("Roll out the approved transition: Argo CD reports %s Degraded, and the rollout stalls at its step timeout (%s)", degraded.Name, degradedTimeout)
	if err := removal.report(ctx, d); err != nil {
		return "", err
	}
	var ro aicrv1alpha1.RuntimeRollout
	if err := poll(ctx, func() (bool, error) {
		err := d.admin.Get(ctx, client.ObjectKey{Name: rollout}, &ro)
		return ro.Status.Phase == aicrv1alpha1.PhaseFailed || ro.Status.Phase == aicrv1alpha1.PhaseSucceeded, err
	}); err != nil {
		return "", fmt.Errorf("waiting for rollout %s to stall: %w", rollout, err)
	}
	if ro.Status.Phase != aicrv1alpha1.PhaseFailed {
		return "", fmt.Errorf("rollout %s succeeded although kwok failed the pods of %s", rollout, degraded)
	}
	progress("rollout %s %s: %s", rollout, ro.Status.Phase, ro.Status.Message)
	// The runtime reports the failure as its own stall, with the rollout's message (RO-11).
	var cr aicrv1alpha1.ClusterRuntime
	if err := poll(ctx, func() (bool, error) {
		err := d.admin.Get(ctx, client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, &cr)
		s := meta.FindStatusCondition(cr.Status.Conditions, aicrv1alpha1.ConditionStalled)
		return s != nil && s.Reason == string(domain.StallRolloutFailed) && strings.Contains(s.Message, ro.Status.Message), err
	}); err != nil {
		return "", fmt.Errorf("waiting for the runtime to report rollout %s failed: %w", rollout, err)
	}
	for _, t := range []string{aicrv1alpha1.ConditionReady, aicrv1alpha1.ConditionStalled} {
		if c := meta.FindStatusCondition(cr.Status.Conditions, t); c != nil {
			progress("runtime %s=%s %s: %s", t, c.Status, c.Reason, c.Message)
		}
	}
	states := map[aicrv1alpha1.ReleaseState][]string{}
	for _, r := range ro.Status.Releases {
		states[r.State] = append(states[r.State], r.Release)
	}
	progress("rollout %s: %d ready, %d removed, failed: %s, not started: %d",
		rollout, len(states[aicrv1alpha1.ReleaseReady]), len(states[aicrv1alpha1.ReleaseRemoved]),
		strings.Join(states[aicrv1alpha1.ReleaseFailed], ", "), len(states[aicrv1alpha1.ReleasePending]))
	stage("Fix the cause (kwok runs the release's pods again) and ask for a retry: a fresh rollout, which needs a new approval")
	if err := d.argo.RestorePods(ctx, degradedStage); err != nil {
		return "", err
	}
	// kwok leaves the crash-looping pods as they are: deleting them (as a kubelet restarting a
	// fixed container would) lets the ReplicaSet start pods that run.
	if err := d.admin.DeleteAllOf(ctx, &corev1.Pod{}, client.InNamespace(degraded.Namespace),
		client.MatchingLabels{"app.kubernetes.io/instance": degraded.Name}); err != nil {
		return "", err
	}
	progress("$ kubectl delete pods -n %s -l app.kubernetes.io/instance=%s", degraded.Namespace, degraded.Name)
	if err := d.waitAvailable(ctx, degraded); err != nil {
		return "", err
	}
	now := time.Now().UTC().Format(time.RFC3339)
	patch := client.MergeFrom(cr.DeepCopy())
	if cr.Annotations == nil {
		cr.Annotations = map[string]string{}
	}
	cr.Annotations[aicrv1alpha1.AnnotationRetryRequestedAt] = now
	if err := d.admin.Patch(ctx, &cr, patch); err != nil {
		return "", err
	}
	progress("$ kubectl annotate clusterruntime %s --overwrite %s=%s", cr.Name, aicrv1alpha1.AnnotationRetryRequestedAt, now)
	var retry string
	err := poll(ctx, func() (bool, error) {
		if err := d.admin.Get(ctx, client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, &cr); err != nil {
			return false, err
		}
		retry = cr.Status.Rollout
		return retry != rollout && d.rolloutPhase(ctx, retry) == aicrv1alpha1.PhaseAwaitingApproval, nil
	})
	if err != nil {
		return "", fmt.Errorf("waiting for the retry of %s: %w", rollout, err)
	}
	progress("retry: rollout %s awaits approval", retry)
	return retry, nil
}

// waitAvailable waits until a Deployment is Current in kstatus terms: its rollout finished and
// every replica runs its current template, available.
func (d *demo) waitAvailable(ctx context.Context, key client.ObjectKey) error {
	var result *status.Result
	err := poll(ctx, func() (bool, error) {
		var dep appsv1.Deployment
		if err := d.admin.Get(ctx, key, &dep); err != nil {
			return false, err
		}
		obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&dep)
		if err != nil {
			return false, err
		}
		result, err = status.Compute(&unstructured.Unstructured{Object: obj})
		return err == nil && result.Status == status.CurrentStatus, err
	})
	if err != nil {
		return fmt.Errorf("waiting for Deployment %s to be available: %w", key, err)
	}
	progress("Deployment %s: %s", key, result.Message)
	return nil
}
