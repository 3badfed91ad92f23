package jobs

import (
	"context"
	"fmt"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nvidia/aicr-operator/ports"
)

// MaxImageRefsBytes bounds what is read as a Job's --image-refs: one digest line
// ("sha256:<64 hex>\n") and room for AICR listing a second reference.
const MaxImageRefsBytes = 1024

// writesImageRefs reports whether the Job hands AICR --image-refs ports.JobImageRefsPath.
func writesImageRefs(job *batchv1.Job) bool {
	for _, c := range job.Spec.Template.Spec.Containers {
		if c.Name != ContainerName {
			continue
		}
		i := slices.Index(c.Args, "--image-refs")
		return i >= 0 && i+1 < len(c.Args) && c.Args[i+1] == ports.JobImageRefsPath
	}
	return false
}

// imageRefs returns what the Job's AICR wrote to its --image-refs file, the termination
// log: the kubelet copies it into the terminated state of the container (on success
// terminationMessagePolicy FallbackToLogsOnError never falls back to the log). Only a Pod
// the Job controls (its UID) whose aicr container exited 0 counts; a missing one wraps
// ports.ErrUntrustedOutput, so the stage runs again. The content is returned unparsed:
// the caller treats it as untrusted.
func (r *Runner) imageRefs(ctx context.Context, job *batchv1.Job) ([]byte, error) {
	pods := &corev1.PodList{}
	if err := r.reader.List(ctx, pods, client.InNamespace(job.Namespace), client.MatchingLabels{JobNameLabel: job.Name}); err != nil {
		return nil, fmt.Errorf("list pods of job %s: %w", job.Name, err)
	}
	for i := range pods.Items {
		if !metav1.IsControlledBy(&pods.Items[i], job) {
			continue
		}
		for _, cs := range pods.Items[i].Status.ContainerStatuses {
			if t := cs.State.Terminated; cs.Name == ContainerName && t != nil && t.ExitCode == 0 {
				if len(t.Message) > MaxImageRefsBytes {
					return nil, fmt.Errorf("image refs of job %s: %d bytes, more than %d: %w", job.Name, len(t.Message), MaxImageRefsBytes, ports.ErrUntrustedOutput)
				}
				return []byte(t.Message), nil
			}
		}
	}
	return nil, fmt.Errorf("job %s has no succeeded aicr container of its own to read its image refs from: %w", job.Name, ports.ErrUntrustedOutput)
}
