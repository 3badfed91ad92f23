package jobs

import (
	"context"
	"fmt"
	"io/fs"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/kube/wellknown"
	"github.com/NVIDIA/aicr/ports"
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
// seven days, so it stays for inspection (RES-7), and deletes its registry
// credential Secret: the push credential lives only as long as the run that
// needs it, not the week the Job is kept. A missing Job is not an error.
func (r *Runner) Retain(ctx context.Context, ref ports.JobRef) error {
	job, err := r.getJob(ctx, ref)
	if err != nil {
		return ignoreJobNotFound(err)
	}
	if err = r.revokeCredentials(ctx, job); err != nil {
		return err
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

// revokeCredentials deletes the registry credential Secret of job, when its Pod mounts one
// and the Secret is the Job's own (precondition: that Secret's UID, so a Secret created since
// is never deleted unread). A Job without credentials reads no Secret: the namespaces of such
// Jobs grant the operator none.
func (r *Runner) revokeCredentials(ctx context.Context, job *batchv1.Job) error {
	if !slices.ContainsFunc(job.Spec.Template.Spec.Volumes, func(v corev1.Volume) bool {
		return v.Secret != nil && v.Secret.SecretName == RegistryName(job.Name)
	}) {
		return nil
	}
	secret := &corev1.Secret{}
	err := r.reader.Get(ctx, client.ObjectKey{Namespace: job.Namespace, Name: RegistryName(job.Name)}, secret)
	if apierrors.IsNotFound(err) || (err == nil && !metav1.IsControlledBy(secret, job)) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the registry credential of job %s: %w", job.Name, err)
	}
	err = r.client.Delete(ctx, secret, client.Preconditions{UID: &secret.UID})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("revoke the registry credential of job %s: %w", job.Name, err)
	}
	return nil
}

// Keep copies a succeeded Job's output into an ownerless ConfigMap name in the operator
// namespace, labelled with role and the runtime UID, its content digest recorded and sealed with
// the operator's key (sealKept), before the Job is deleted (RES-7). The output must be the Job's
// own (verifiedOutput). An existing copy is success only when it is the operator's sealed copy of
// the same content; an operator-labelled copy that does not verify is replaced, and anything else in the way
// is reported as ports.ErrForeignObject: the operator never takes over a ConfigMap it cannot
// prove it wrote.
func (r *Runner) Keep(ctx context.Context, ref ports.JobRef, result ports.KeptResult) error {
	name, role, runtimeUID := result.Name, result.Role, result.RuntimeUID
	job, err := r.getJob(ctx, ref)
	if err != nil {
		return err
	}
	out, err := r.verifiedOutput(ctx, job)
	if err != nil {
		return err
	}
	labels := map[string]string{
		wellknown.LabelRole:       role,
		wellknown.LabelRuntimeUID: runtimeUID,
		wellknown.LabelManagedBy:  wellknown.ManagedByValue,
	}
	if v := out.Labels[VersionLabel]; v != "" {
		labels[VersionLabel] = v
	}
	cp := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: r.cfg.OperatorNamespace, Labels: labels,
			Annotations: map[string]string{wellknown.AnnotationRuntimeUID: runtimeUID},
		},
		Data: out.Data, BinaryData: out.BinaryData,
	}
	prepare(cp)
	created := cp.DeepCopy()
	err = r.client.Create(ctx, created)
	if apierrors.IsAlreadyExists(err) {
		return r.keepOver(ctx, cp, role, runtimeUID)
	}
	if err != nil {
		return fmt.Errorf("keep output of job %s: %w", ref.Name, err)
	}
	return r.sealKept(ctx, created, role, runtimeUID)
}

// keepOver settles a kept copy whose name is taken: the operator's own sealed copy of the same
// content is success; a copy of exactly the content this Keep writes, in the operator's shape
// but without its seal (the operator's own create whose answer was lost, or that it stopped
// after), is sealed where it is, so nothing is written twice; any other operator-labelled copy
// that does not verify (changed, or written without the operator's key: before the key existed,
// or while an admission binding was missing) is deleted (that exact object) and written again;
// anything else is foreign.
func (r *Runner) keepOver(ctx context.Context, cp *corev1.ConfigMap, role, runtimeUID string) error {
	existing := &corev1.ConfigMap{}
	if err := r.reader.Get(ctx, client.ObjectKeyFromObject(cp), existing); err != nil {
		return fmt.Errorf("get kept result %s: %w", cp.Name, err)
	}
	verr := r.verifySealed(existing, role, runtimeUID)
	same := existing.Annotations[wellknown.AnnotationContentDigest] == cp.Annotations[wellknown.AnnotationContentDigest]
	switch {
	case verr == nil && same:
		return nil
	case existing.Labels[wellknown.LabelManagedBy] != wellknown.ManagedByValue:
		return fmt.Errorf("ConfigMap %s/%s is in the way of the kept %s result and was not written by the operator "+
			"(delete it so the operator can keep its own): %w", cp.Namespace, cp.Name, role, ports.ErrForeignObject)
	case same && verifyShape(existing, role, runtimeUID) == nil:
		return r.sealKept(ctx, existing, role, runtimeUID)
	}
	uid, rv := existing.UID, existing.ResourceVersion
	if err := r.client.Delete(ctx, existing, client.Preconditions{UID: &uid, ResourceVersion: &rv}); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("replace kept result %s: %w", cp.Name, err)
	}
	if err := r.client.Create(ctx, cp); err != nil {
		return fmt.Errorf("keep output as %s: %w", cp.Name, err)
	}
	return r.sealKept(ctx, cp, role, runtimeUID)
}

// Kept returns the files of the kept result: the data keys of its ConfigMap in the operator
// namespace as files. Nil when there is none; an error wrapping ports.ErrUntrustedOutput when
// the ConfigMap is not the runner's sealed copy for the role and runtime, unchanged, its seal
// made by the operator's key (verifySealed), so the caller runs the job again instead of using it.
func (r *Runner) Kept(ctx context.Context, result ports.KeptResult) (fs.FS, error) {
	cm := &corev1.ConfigMap{}
	err := r.reader.Get(ctx, client.ObjectKey{Namespace: r.cfg.OperatorNamespace, Name: result.Name}, cm)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("get kept result %s: %w", result.Name, err)
	}
	if err = r.verifySealed(cm, result.Role, result.RuntimeUID); err != nil {
		return nil, fmt.Errorf("kept %s result %s: %w: %w", result.Role, result.Name, ports.ErrUntrustedOutput, err)
	}
	files, err := outputFiles(cm.Data)
	if err != nil {
		return nil, fmt.Errorf("kept %s result %s: %w: %w", result.Role, result.Name, ports.ErrUntrustedOutput, err)
	}
	return files, nil
}

func ignoreJobNotFound(err error) error {
	if err != nil && isJobNotFound(err) {
		return nil
	}
	return err
}
