package upgrade_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// TestUpgrade_EarlierReleaseJobsStillGo: a Job of AICR 1.1 the operator deletes after the chart
// moved the pinned image to 1.2 goes, as the garbage collector and the Job controller remove
// their finalizers without changing a spec, while nobody creates a Job of the 1.1 image any more
// (RES-8, RES-5). Before the chart admitted such updates only for the pinned images, and the
// earlier release's Job stayed terminating for ever.
func TestUpgrade_EarlierReleaseJobsStillGo(t *testing.T) {
	ctx := context.Background()
	operator := as(operatorUser, "system:serviceaccounts", "system:serviceaccounts:"+operatorNS)
	controllers := []string{"system:serviceaccounts", "system:serviceaccounts:kube-system"}
	jobController, collector := as(jobexec.JobControllerUser, controllers...), as(jobexec.GarbageCollectorUser, controllers...)

	require.NoError(t, installChart(ctx, aicr11))
	waitImageAdmitted(t, aicr11.image())
	job := pinnedJob("aicr-recipe-earlier", aicr11.image())
	require.NoError(t, operator.Create(ctx, job))
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: job.Name + "-", Namespace: jobsNS,
			Labels:          map[string]string{jobs.JobNameLabel: job.Name},
			Finalizers:      []string{batchv1.JobTrackingFinalizer},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))}},
		Spec: job.Spec.Template.Spec,
	}
	require.NoError(t, jobController.Create(ctx, pod), "the Job controller creates the 1.1 Job's Pod")

	require.NoError(t, installChart(ctx, aicr12))
	waitImageAdmitted(t, aicr12.image())
	// The API server applies the upgraded policy a moment after it admits the new image.
	require.Eventually(t, func() bool {
		err := operator.Create(ctx, pinnedJob("aicr-recipe-unpinned", aicr11.image()), client.DryRunAll)
		return err != nil && strings.Contains(err.Error(), "RES-8: Jobs in "+jobsNS+" run only the pinned images "+aicr12.image())
	}, waitFor, tick, "a Job of the earlier image is not created any more")

	require.NoError(t, operator.Delete(ctx, job, client.PropagationPolicy(metav1.DeletePropagationForeground)))
	require.NoError(t, collector.Delete(ctx, pod), "the garbage collector deletes the dependent Pod")
	require.NoError(t, removeFinalizer(ctx, jobController, pod, batchv1.JobTrackingFinalizer),
		"the Job controller removes its tracking finalizer from the 1.1 Pod")
	require.NoError(t, k8s.Get(ctx, client.ObjectKeyFromObject(job), job))
	require.Contains(t, job.Finalizers, metav1.FinalizerDeleteDependents)
	require.NoError(t, removeFinalizer(ctx, collector, job, metav1.FinalizerDeleteDependents),
		"the garbage collector removes the foregroundDeletion finalizer from the 1.1 Job")
	require.Eventually(t, func() bool {
		return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKeyFromObject(job), &batchv1.Job{}))
	}, waitFor, tick, "the 1.1 Job is gone")
}

// pinnedJob is a Job of the AICR Jobs identity running image, as Pod Security's restricted
// level admits it.
func pinnedJob(name, image string) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: jobsNS},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			ServiceAccountName: jobs.ServiceAccount, RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: jobs.ContainerName, Image: image, SecurityContext: &corev1.SecurityContext{
				AllowPrivilegeEscalation: ptr.To(false), RunAsNonRoot: ptr.To(true),
				Capabilities:   &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			}}},
		}}},
	}
}

// removeFinalizer patches finalizer out of obj as c.
func removeFinalizer(ctx context.Context, c client.Client, obj client.Object, finalizer string) error {
	patch := client.MergeFrom(obj.DeepCopyObject().(client.Object))
	obj.SetFinalizers(slices.DeleteFunc(obj.GetFinalizers(), func(f string) bool { return f == finalizer }))
	return c.Patch(ctx, obj, patch)
}
