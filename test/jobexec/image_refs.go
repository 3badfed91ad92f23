package jobexec

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/NVIDIA/aicr/adapters/jobs"
)

// CopierImage is the operator image the harnesses give the Job runner as its copier
// (jobs.Config.CopierImage) and New expects on a bundle Job's image-refs container.
const CopierImage = "registry.example/aicr-operator:v0.0.0@sha256:" +
	"1111111111111111111111111111111111111111111111111111111111111111"

// imageDirs are the directories of the AICR image itself a Pod does not mount (v1's base image
// is distroless: /dev is the kubelet's and root-owned, /app the working directory).
var imageDirs = []string{"/dev", "/app"}

// aicrContainer returns the Pod's AICR container: an init container of a Pod that hands its
// image refs back, else its one container.
func aicrContainer(pod *corev1.PodSpec) *corev1.Container {
	for _, cs := range [][]corev1.Container{pod.InitContainers, pod.Containers} {
		for i := range cs {
			if cs[i].Name == jobs.ContainerName {
				return &cs[i]
			}
		}
	}
	return &pod.Containers[0]
}

// AICRArgs returns the arguments of the Job's AICR container as the kubelet hands them to
// AICR: a $(VAR) of a variable the container takes from its Pod's controller-uid label
// (ports.JobUIDArg) expanded to the Job's UID, the value that label has.
func AICRArgs(job *batchv1.Job) []string {
	c := aicrContainer(&job.Spec.Template.Spec)
	uidField := "metadata.labels['" + batchv1.ControllerUidLabel + "']"
	args := slices.Clone(c.Args)
	for _, e := range c.Env {
		if e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != uidField {
			continue
		}
		for i := range args {
			args[i] = strings.ReplaceAll(args[i], "$("+e.Name+")", string(job.UID))
		}
	}
	return args
}

// writableEmptyDir reports whether dir is where the AICR container mounts an emptyDir writable.
func writableEmptyDir(pod *corev1.PodSpec, dir string) bool {
	for _, m := range aicrContainer(pod).VolumeMounts {
		if path.Clean(m.MountPath) != path.Clean(dir) || m.ReadOnly {
			continue
		}
		for _, v := range pod.Volumes {
			if v.Name == m.Name && v.EmptyDir != nil {
				return true
			}
		}
	}
	return false
}

// PrePush plays what AICR v1's bundle checks before it pushes (docs/design/aicr-cli.md
// section 7): the --image-refs target's directory must exist (INVALID_REQUEST, exit 2), and the
// bundle is rendered into ./bundle under the working directory. The Pod runs as a non-root
// user (uid 65532 in v1's image), so a directory is AICR's to write only when a writable
// emptyDir is mounted there; the image's own directories are not (INTERNAL, exit 8). Nil when
// the Pod gives AICR both.
func PrePush(pod *corev1.PodSpec) *Result {
	c := aicrContainer(pod)
	if dir := path.Dir(argValue(c.Args, "--image-refs")); dir != "." && !writableEmptyDir(pod, dir) && !slices.Contains(imageDirs, dir) {
		r := failure(2, fmt.Sprintf("[INVALID_REQUEST] --image-refs parent directory %s does not exist", dir))
		return &r
	}
	work := c.WorkingDir
	if work == "" {
		work = "/app"
	}
	if !writableEmptyDir(pod, work) {
		r := failure(8, fmt.Sprintf("[INTERNAL] failed to create bundle directory: mkdir %s: permission denied",
			path.Join(work, "bundle")))
		return &r
	}
	return nil
}

// PublishImageRefs writes refs (the pushed digest and a newline) as AICR v1 writes its
// --image-refs file: a new
// ".aicr-image-refs-<32 hex>.tmp" created exclusively with mode 0600 in the target's
// directory, then renamed onto the target. dir stands for that directory when the AICR
// container mounts a writable emptyDir there; anywhere else (the kubelet's /dev of
// /dev/termination-log) the create fails as it does for a non-root user (INTERNAL, exit 8,
// after the push). It returns the published file under dir.
func PublishImageRefs(pod *corev1.PodSpec, dir, refs string) (string, *Result) {
	target := argValue(aicrContainer(pod).Args, "--image-refs")
	var suffix [16]byte
	_, _ = rand.Read(suffix[:])
	tmpName := ".aicr-image-refs-" + hex.EncodeToString(suffix[:]) + ".tmp"
	if !writableEmptyDir(pod, path.Dir(target)) {
		r := failure(8, fmt.Sprintf("[INTERNAL] failed to write image refs: open %s: permission denied",
			path.Join(path.Dir(target), tmpName)))
		return "", &r
	}
	tmp, file := filepath.Join(dir, tmpName), filepath.Join(dir, path.Base(target))
	err := os.WriteFile(tmp, []byte(refs), 0o600)
	if err == nil {
		err = os.Rename(tmp, file)
	}
	if err != nil {
		r := failure(8, "[INTERNAL] failed to write image refs: "+err.Error())
		return "", &r
	}
	return file, nil
}

// PlayCopier runs a bundle Job's image-refs container over file, AICR's published --image-refs
// as the container's read-only mount shows it: the operator's own jobs.CopyImageRefs into a
// termination log, and what the kubelet then records (exit code and termination message; on
// a failure the log tail, FallbackToLogsOnError).
func PlayCopier(file string) (int32, string) {
	logDir, err := os.MkdirTemp("", "termination-log-")
	if err != nil {
		return jobs.CopyFailedExitCode, jobs.FailureRecord(err)
	}
	defer func() { _ = os.RemoveAll(logDir) }()
	log := filepath.Join(logDir, "termination-log")
	if err = os.WriteFile(log, nil, 0o666); err != nil {
		return jobs.CopyFailedExitCode, jobs.FailureRecord(err)
	}
	if err = jobs.CopyImageRefs(file, log); err != nil {
		return jobs.CopyFailedExitCode, jobs.FailureRecord(err) + "\n"
	}
	msg, err := os.ReadFile(log)
	if err != nil {
		return jobs.CopyFailedExitCode, jobs.FailureRecord(err)
	}
	return 0, string(msg)
}

// handsBack reports whether the Pod hands its image refs back through an image-refs container.
func handsBack(pod *corev1.PodSpec) bool {
	return len(pod.InitContainers) == 1 && pod.InitContainers[0].Name == jobs.ContainerName
}
