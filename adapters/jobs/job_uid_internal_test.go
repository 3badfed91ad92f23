package jobs

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/sealtest"
)

// TestJob_UIDArgNamesTheJobsOwnUID: ports.JobUIDArg is a reference to a variable of the AICR
// container that the downward API fills with the Pod's controller-uid label, the UID of the Job
// that created the Pod, so the kubelet expands it in the arguments to this run's UID.
func TestJob_UIDArgNamesTheJobsOwnUID(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "$("+JobUIDEnv+")", ports.JobUIDArg)
	r, err := New(Config{Namespace: "aicr-jobs", OperatorNamespace: "aicr-system", Image: testImage, CopierImage: testCopier, Sealer: sealtest.New()}, nil, nil)
	require.NoError(t, err)
	for _, spec := range []ports.JobSpec{bundleSpec("--image-refs", ports.JobImageRefsPath), bundleSpec()} {
		pod := r.job(spec).Spec.Template.Spec
		var env []corev1.EnvVar
		for _, c := range append(pod.InitContainers, pod.Containers...) {
			if c.Name == ContainerName {
				env = c.Env
			}
		}
		assert.Contains(t, env, corev1.EnvVar{Name: JobUIDEnv, ValueFrom: &corev1.EnvVarSource{
			FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['" + batchv1.ControllerUidLabel + "']"}}})
	}
}
