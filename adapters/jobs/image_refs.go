package jobs

import (
	"context"
	"fmt"
	"path"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/ports"
)

// How a bundle Job hands the digest AICR pushed back to the operator (docs/design/aicr-jobs.md,
// "Bundle transport").
const (
	// MaxImageRefsBytes bounds what is read as a Job's --image-refs: one digest line
	// ("sha256:<64 hex>\n") and room for AICR listing a second reference.
	MaxImageRefsBytes = 1024
	// ImageRefsContainerName is the container that copies AICR's --image-refs file into its
	// termination message, after AICR ran as the init container ContainerName.
	ImageRefsContainerName = "image-refs"
	// CopyImageRefsCommand is the operator binary's command that container runs
	// (CopyImageRefs), with the --image-refs file as its one argument.
	CopyImageRefsCommand = "copy-image-refs"
	// WorkDir is the working directory of a bundle Job's AICR container, an emptyDir: AICR
	// renders an OCI bundle into ./bundle before it pushes it.
	WorkDir = "/aicr/work"
)

// outDir is the emptyDir holding the --image-refs file: AICR writes a temporary file in the
// file's directory and renames it onto the file, so the directory is AICR's to write.
var outDir = path.Dir(ports.JobImageRefsPath)

// writesImageRefs reports whether the Pod hands AICR --image-refs ports.JobImageRefsPath.
func writesImageRefs(pod *corev1.PodSpec) bool {
	c := aicrContainer(pod)
	return c != nil && imageRefsArgs(c.Args)
}

// imageRefsArgs reports whether AICR's arguments carry --image-refs ports.JobImageRefsPath.
func imageRefsArgs(args []string) bool {
	i := slices.Index(args, "--image-refs")
	return i >= 0 && i+1 < len(args) && args[i+1] == ports.JobImageRefsPath
}

// aicrContainer returns the AICR container of the Pod, an init container when the Pod hands
// its image refs back (handBackImageRefs), or nil.
func aicrContainer(pod *corev1.PodSpec) *corev1.Container {
	for _, cs := range [][]corev1.Container{pod.InitContainers, pod.Containers} {
		for i := range cs {
			if cs[i].Name == ContainerName {
				return &cs[i]
			}
		}
	}
	return nil
}

// handBackImageRefs reshapes a Pod whose AICR pushes a bundle: AICR runs as the init
// container, with its working directory and the --image-refs directory on emptyDirs, and
// the main container, the operator's own image (copier), copies the file into its
// termination message once AICR exited 0.
func handBackImageRefs(pod *corev1.PodSpec, copier string) {
	aicr := pod.Containers[0]
	aicr.WorkingDir = WorkDir
	aicr.VolumeMounts = append(aicr.VolumeMounts,
		corev1.VolumeMount{Name: "image-refs", MountPath: outDir},
		corev1.VolumeMount{Name: "work", MountPath: WorkDir})
	pod.Volumes = append(pod.Volumes,
		corev1.Volume{Name: "image-refs", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		corev1.Volume{Name: "work", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	pod.InitContainers = []corev1.Container{aicr}
	pod.Containers = []corev1.Container{{
		Name:                     ImageRefsContainerName,
		Image:                    copier,
		Args:                     []string{CopyImageRefsCommand, ports.JobImageRefsPath},
		Resources:                aicr.Resources,
		VolumeMounts:             []corev1.VolumeMount{{Name: "image-refs", MountPath: outDir, ReadOnly: true}},
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
		SecurityContext:          aicr.SecurityContext.DeepCopy(),
	}}
}

// imageRefs returns what the Job's AICR wrote to its --image-refs file, as the image-refs
// container copied it into its termination message (the kubelet records it in the
// container's terminated state; on success FallbackToLogsOnError never falls back to the
// log). Only a Pod the Job controls (its UID) whose aicr init container and image-refs
// container both exited 0 counts; a missing one wraps ports.ErrUntrustedOutput, so the stage
// runs again. The content is returned unparsed: the caller treats it as untrusted.
func (r *Runner) imageRefs(ctx context.Context, job *batchv1.Job) ([]byte, error) {
	pods := &corev1.PodList{}
	if err := r.reader.List(ctx, pods, client.InNamespace(job.Namespace), client.MatchingLabels{JobNameLabel: job.Name}); err != nil {
		return nil, fmt.Errorf("list pods of job %s: %w", job.Name, err)
	}
	for i := range pods.Items {
		pod := &pods.Items[i]
		if !metav1.IsControlledBy(pod, job) || exited(pod.Status.InitContainerStatuses, ContainerName) != 0 {
			continue
		}
		for _, cs := range pod.Status.ContainerStatuses {
			if t := cs.State.Terminated; cs.Name == ImageRefsContainerName && t != nil && t.ExitCode == 0 {
				if len(t.Message) > MaxImageRefsBytes {
					return nil, fmt.Errorf("image refs of job %s: %d bytes, more than %d: %w", job.Name, len(t.Message), MaxImageRefsBytes, ports.ErrUntrustedOutput)
				}
				return []byte(t.Message), nil
			}
		}
	}
	return nil, fmt.Errorf("job %s has no pod of its own whose aicr and image-refs containers succeeded: %w", job.Name, ports.ErrUntrustedOutput)
}

// exited returns the exit code of the named container among statuses, or -1 while it has
// not terminated.
func exited(statuses []corev1.ContainerStatus, name string) int32 {
	for _, cs := range statuses {
		if cs.Name == name && cs.State.Terminated != nil {
			return cs.State.Terminated.ExitCode
		}
	}
	return -1
}
