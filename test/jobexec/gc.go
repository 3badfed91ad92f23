package jobexec

import (
	"context"
	"fmt"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// collect plays the garbage collector for a Job deleted with
// propagationPolicy Foreground (envtest runs no kube-controller-manager): as
// the garbage collector's identity it deletes the Job's dependents (Pods,
// ConfigMaps, Secrets owned by it) and then removes the foregroundDeletion
// finalizer so the Job goes.
func (e *Executor) collect(ctx context.Context, job *batchv1.Job) error {
	if !slices.Contains(job.Finalizers, metav1.FinalizerDeleteDependents) {
		return nil
	}
	for _, l := range []client.ObjectList{&corev1.PodList{}, &corev1.ConfigMapList{}, &corev1.SecretList{}} {
		if err := e.c.List(ctx, l, client.InNamespace(job.Namespace)); err != nil {
			return fmt.Errorf("list dependents: %w", err)
		}
		var items []client.Object
		switch l := l.(type) {
		case *corev1.PodList:
			for i := range l.Items {
				items = append(items, &l.Items[i])
			}
		case *corev1.ConfigMapList:
			for i := range l.Items {
				items = append(items, &l.Items[i])
			}
		case *corev1.SecretList:
			for i := range l.Items {
				items = append(items, &l.Items[i])
			}
		}
		for _, o := range items {
			if ownedBy(o, job) {
				if err := client.IgnoreNotFound(e.collector.Delete(ctx, o)); err != nil {
					return fmt.Errorf("delete dependent %s: %w", o.GetName(), err)
				}
			}
		}
	}
	patch := client.MergeFrom(job.DeepCopy())
	job.Finalizers = slices.DeleteFunc(job.Finalizers, func(f string) bool { return f == metav1.FinalizerDeleteDependents })
	return client.IgnoreNotFound(e.collector.Patch(ctx, job, patch))
}

func ownedBy(o client.Object, job *batchv1.Job) bool {
	for _, r := range o.GetOwnerReferences() {
		if r.UID == job.UID {
			return true
		}
	}
	return false
}
