package jobs

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/ports"
)

// Delete deletes a Job with propagationPolicy Foreground, so its Pods and
// run-scoped objects go before it (RES-7). A missing Job is not an error.
func (r *Runner) Delete(ctx context.Context, ref ports.JobRef) error {
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: r.cfg.Namespace, Name: ref.Name}}
	err := r.client.Delete(ctx, job, client.PropagationPolicy(metav1.DeletePropagationForeground))
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete job %s: %w", ref.Name, err)
	}
	return nil
}

// Retain raises ttlSecondsAfterFinished of a stalled stage's failed Job to
// seven days, so it stays for inspection (RES-7). A missing Job is not an error.
func (r *Runner) Retain(ctx context.Context, ref ports.JobRef) error {
	job, err := r.getJob(ctx, ref)
	if err != nil {
		return ignoreJobNotFound(err)
	}
	if job.Spec.TTLSecondsAfterFinished != nil && *job.Spec.TTLSecondsAfterFinished == TTLStalled {
		return nil
	}
	patch := client.MergeFrom(job.DeepCopy())
	job.Spec.TTLSecondsAfterFinished = ptr.To(TTLStalled)
	if err = r.client.Patch(ctx, job, patch); err != nil {
		return fmt.Errorf("retain job %s: %w", ref.Name, err)
	}
	return nil
}

// Keep copies a succeeded Job's output into an ownerless ConfigMap name in
// the operator namespace, labelled with role and the runtime UID, before the
// Job is deleted (RES-7). An existing copy is kept as it is.
func (r *Runner) Keep(ctx context.Context, ref ports.JobRef, name, role, runtimeUID string) error {
	out := &corev1.ConfigMap{}
	if err := r.reader.Get(ctx, client.ObjectKey{Namespace: r.cfg.Namespace, Name: OutputName(ref.Name)}, out); err != nil {
		return fmt.Errorf("get output of job %s: %w", ref.Name, err)
	}
	labels := map[string]string{
		aicrv1alpha1.LabelRole:       role,
		aicrv1alpha1.LabelRuntimeUID: runtimeUID,
		aicrv1alpha1.LabelManagedBy:  aicrv1alpha1.ManagedByValue,
	}
	if v := out.Labels[VersionLabel]; v != "" {
		labels[VersionLabel] = v
	}
	cp := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: r.cfg.OperatorNamespace, Labels: labels,
			Annotations: map[string]string{aicrv1alpha1.AnnotationRuntimeUID: runtimeUID},
		},
		Immutable: ptr.To(true), Data: out.Data, BinaryData: out.BinaryData,
	}
	if err := r.client.Create(ctx, cp); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("keep output of job %s: %w", ref.Name, err)
	}
	return nil
}

func ignoreJobNotFound(err error) error {
	if err != nil && isJobNotFound(err) {
		return nil
	}
	return err
}
