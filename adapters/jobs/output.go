package jobs

import (
	"context"
	"fmt"
	"io/fs"
	"testing/fstest"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/bundletar"
	"github.com/NVIDIA/aicr/adapters/kube/wellknown"
	"github.com/NVIDIA/aicr/ports"
)

// Output returns the files of a succeeded Job: the output ConfigMap's data keys as files (the
// artifact under ports.JobArtifactFile, outputFiles), or for a bundle the unpacked
// bundle.tar.gz, and for a Job given --image-refs ports.JobImageRefsPath what AICR wrote there
// (ports.JobImageRefsFile, as its image-refs container handed it back, see imageRefs). The
// output must be the Job's own (verifiedOutput) and agree with itself on the AICR version
// (reportedVersion); one that is not wraps ports.ErrUntrustedOutput. A missing output, or one
// holding no artifact of a Job that hands back no image refs, wraps ports.ErrOutputLost.
func (r *Runner) Output(ctx context.Context, ref ports.JobRef) (fs.FS, error) {
	job, err := r.getJob(ctx, ref)
	if err != nil {
		return nil, err
	}
	if state, _ := jobState(job); state != ports.JobSucceeded {
		return nil, fmt.Errorf("job %s has not succeeded: %w", ref.Name, ports.ErrJobNotFound)
	}
	cm, err := r.verifiedOutput(ctx, job)
	if err != nil {
		return nil, err
	}
	if archive, ok := cm.BinaryData[BundleKey]; ok {
		return bundletar.Untar(archive, bundletar.MaxBundleBytes)
	}
	files, err := outputFiles(cm.Data)
	if err == nil {
		_, err = reportedVersion(cm.Labels, cm.Data)
	}
	if err != nil {
		return nil, fmt.Errorf("output of job %s: %w: %w", ref.Name, ports.ErrUntrustedOutput, err)
	}
	refs := writesImageRefs(&job.Spec.Template.Spec)
	if _, ok := files[ports.JobArtifactFile]; !ok && !refs {
		// The runner creates the output empty before the Job starts: AICR wrote nothing to it.
		return nil, fmt.Errorf("output %s of job %s holds no artifact: %w", cm.Name, ref.Name, ports.ErrOutputLost)
	}
	if refs {
		refs, err := r.imageRefs(ctx, job)
		if err != nil {
			return nil, err
		}
		files[ports.JobImageRefsFile] = &fstest.MapFile{Data: refs, Mode: 0o444}
	}
	for k, v := range cm.BinaryData {
		files[k] = &fstest.MapFile{Data: v, Mode: 0o444}
	}
	return files, nil
}

// verifiedOutput reads the Job's output ConfigMap and proves it is the one the runner created
// for this Job: controlled by the Job (its UID, not only its name) and carrying the labels the
// runner gave the Job. The chart's aicr-operator-job-configmaps policy lets only the operator
// create it and only a Pod of this Job write it, so such an output is the Job's own. A missing
// output wraps ports.ErrOutputLost, any other mismatch ports.ErrUntrustedOutput.
func (r *Runner) verifiedOutput(ctx context.Context, job *batchv1.Job) (*corev1.ConfigMap, error) {
	cm := &corev1.ConfigMap{}
	err := r.reader.Get(ctx, client.ObjectKey{Namespace: job.Namespace, Name: OutputName(job.Name)}, cm)
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("output of job %s: %w", job.Name, ports.ErrOutputLost)
	}
	if err != nil {
		return nil, fmt.Errorf("get output of job %s: %w", job.Name, err)
	}
	owner := metav1.GetControllerOf(cm)
	if owner == nil || owner.UID != job.UID || owner.Kind != "Job" {
		return nil, fmt.Errorf("output %s is not controlled by job %s (uid %s): %w", cm.Name, job.Name, job.UID, ports.ErrUntrustedOutput)
	}
	for _, k := range []string{wellknown.LabelManagedBy, wellknown.LabelRuntimeUID, KindLabel} {
		if cm.Labels[k] != job.Labels[k] {
			return nil, fmt.Errorf("output %s has label %s=%q, job %s has %q: %w", cm.Name, k, cm.Labels[k], job.Name,
				job.Labels[k], ports.ErrUntrustedOutput)
		}
	}
	return cm, nil
}
