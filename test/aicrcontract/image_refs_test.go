package aicrcontract_test

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/jobexec"
	"github.com/NVIDIA/aicr/test/sealtest"
)

const aicrImage = "registry.example/aicr:v1.1.0@sha256:0000000000000000000000000000000000000000000000000000000000000000"

var pushed = "sha256:" + strings.Repeat("ab", 32) + "\n"

// startedJob is the Job the operator's runner of cfg builds for spec: a build of the Job object
// only (no API server judges it here; test/trust and test/resolver run it under the chart's
// policies).
func startedJob(t *testing.T, cfg jobs.Config, spec ports.JobSpec) *batchv1.Job {
	t.Helper()
	scheme := runtime.NewScheme()
	require.NoError(t, clientgoscheme.AddToScheme(scheme))
	c := fake.NewClientBuilder().WithScheme(scheme).Build()
	cfg.OperatorNamespace, cfg.Image, spec.Image, cfg.Sealer = "aicr-system", aicrImage, aicrImage, sealtest.New()
	r, err := jobs.New(cfg, c, c)
	require.NoError(t, err)
	_, err = r.Start(context.Background(), spec)
	require.NoError(t, err)
	job := &batchv1.Job{}
	require.NoError(t, c.Get(context.Background(), client.ObjectKey{Namespace: cfg.Namespace, Name: spec.Name}, job))
	return job
}

// operatorBundlePod is the Pod template of the bundle Job the operator's runner starts.
func operatorBundlePod(t *testing.T) *corev1.PodSpec {
	t.Helper()
	name := "aicr-bundle-contract"
	job := startedJob(t, jobs.Config{Namespace: "aicr-jobs", CopierImage: jobexec.CopierImage}, ports.JobSpec{Name: name, Kind: ports.JobBundle,
		Args: []string{"--log-json", "bundle", "-o", "oci://registry.example/bundles/cluster:" + name, "--image-refs", ports.JobImageRefsPath}})
	return &job.Spec.Template.Spec
}

// earlierBundlePod is the shape the operator used before: AICR as the one container, its
// --image-refs the kubelet's /dev/termination-log, its working directory the image's own.
func earlierBundlePod() *corev1.PodSpec {
	return &corev1.PodSpec{Containers: []corev1.Container{{Name: jobs.ContainerName, Image: aicrImage,
		Args: []string{"--log-json", "bundle", "-o", "oci://registry.example/bundles/cluster:x", "--image-refs", "/dev/termination-log"}}}}
}

// 3.1: the --image-refs target's directory must exist before anything is pushed; one that
// neither the Pod mounts nor the image has fails with INVALID_REQUEST, exit 2. The operator's
// Pod mounts it.
func TestFact3_1_ImageRefsTargetDirectoryExists(t *testing.T) {
	t.Parallel()
	pod := operatorBundlePod(t)
	assert.Nil(t, jobexec.PrePush(pod))
	elsewhere := pod.DeepCopy()
	aicr := &elsewhere.InitContainers[0]
	aicr.Args[len(aicr.Args)-1] = "/nowhere/digest"
	refused := jobexec.PrePush(elsewhere)
	require.NotNil(t, refused)
	assert.Equal(t, int32(2), refused.ExitCode)
	assert.Contains(t, refused.Log, "[INVALID_REQUEST]")
}

// 3.2: AICR publishes the digest through a new mode-0600 temporary file in the target's
// directory and a rename onto the target. The operator's Pod gives it that directory: the
// published file is a regular 0600 file of exactly the digest, no temporary file is left,
// and the operator's image-refs container hands exactly that digest back.
func TestFact3_2_ImageRefsThroughATemporaryFileAndARename(t *testing.T) {
	t.Parallel()
	pod := operatorBundlePod(t)
	dir := t.TempDir()
	file, refused := jobexec.PublishImageRefs(pod, dir, pushed)
	require.Nil(t, refused)
	assert.Equal(t, filepath.Join(dir, path.Base(ports.JobImageRefsPath)), file)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "the temporary file was renamed away")
	info, err := os.Lstat(file)
	require.NoError(t, err)
	assert.True(t, info.Mode().IsRegular())
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	code, msg := jobexec.PlayCopier(file)
	assert.Equal(t, int32(0), code)
	assert.Equal(t, pushed, msg)
}

// 3.3: pointed at /dev/termination-log, the publish fails after the push: the temporary file
// cannot be created in the kubelet's root-owned /dev by a non-root AICR (INTERNAL, exit 8),
// so no digest comes back. This is the stall the earlier Pod shape ran into.
func TestFact3_3_ImageRefsOnTheTerminationLogFail(t *testing.T) {
	t.Parallel()
	pod := earlierBundlePod()
	assert.Nil(t, jobexec.PrePush(&corev1.PodSpec{Containers: []corev1.Container{{Name: jobs.ContainerName,
		Args: pod.Containers[0].Args, WorkingDir: jobs.WorkDir, VolumeMounts: []corev1.VolumeMount{{Name: "w", MountPath: jobs.WorkDir}}}},
		Volumes: []corev1.Volume{{Name: "w", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}}),
		"/dev exists: the target's directory check passes")
	_, refused := jobexec.PublishImageRefs(pod, t.TempDir(), pushed)
	require.NotNil(t, refused)
	assert.Equal(t, int32(8), refused.ExitCode)
	assert.Contains(t, refused.Log, "[INTERNAL]")
	assert.Contains(t, refused.Log, "/dev/.aicr-image-refs-")
}

// 4.1: an OCI bundle is rendered into ./bundle under the working directory before the push.
// The image's own working directory is not AICR's to write (INTERNAL, exit 8); the operator's
// Pod gives AICR an emptyDir there.
func TestFact4_1_BundleRenderedUnderTheWorkingDirectory(t *testing.T) {
	t.Parallel()
	refused := jobexec.PrePush(earlierBundlePod())
	require.NotNil(t, refused)
	assert.Equal(t, int32(8), refused.ExitCode)
	assert.Contains(t, refused.Log, "/app/bundle")
	pod := operatorBundlePod(t)
	assert.Nil(t, jobexec.PrePush(pod))
	assert.Equal(t, jobs.WorkDir, pod.InitContainers[0].WorkingDir)
}

// 4.2: AICR's images run as uid 65532 with /app as their working directory, and whether that
// user may write /app is unknown. The operator never depends on it: every AICR container it
// runs, but the root snapshot agent's, is non-root without a uid of its own (the image's user
// applies); only the bundle writes under its working directory (4.1), and its Pod mounts an
// emptyDir there, which the simulator, modelling /app as not writable, accepts.
func TestFact4_2_NoRunDependsOnWritingTheImagesWorkingDirectory(t *testing.T) {
	t.Parallel()
	for _, kind := range outputStages {
		pod := startStage(t, kind).job.Spec.Template.Spec
		aicr := pod.Containers[0]
		if kind == ports.JobSnapshot {
			require.NotNil(t, aicr.SecurityContext.RunAsUser)
			assert.Zero(t, *aicr.SecurityContext.RunAsUser, "the agent runs as root")
			continue
		}
		assert.True(t, *pod.SecurityContext.RunAsNonRoot, kind)
		assert.Nil(t, pod.SecurityContext.RunAsUser, "%s: the image's user", kind)
		assert.Nil(t, aicr.SecurityContext.RunAsUser, "%s: the image's user", kind)
		assert.Empty(t, aicr.WorkingDir, "%s writes nothing under its working directory", kind)
	}
	pod := operatorBundlePod(t)
	aicr := pod.InitContainers[0]
	assert.Nil(t, aicr.SecurityContext.RunAsUser, "the bundle runs as the image's user")
	mounted := false
	for _, m := range aicr.VolumeMounts {
		for _, v := range pod.Volumes {
			mounted = mounted || (m.MountPath == aicr.WorkingDir && m.Name == v.Name && v.EmptyDir != nil && !m.ReadOnly)
		}
	}
	assert.True(t, mounted, "the bundle's working directory %s is a writable emptyDir", aicr.WorkingDir)
	assert.Nil(t, jobexec.PrePush(pod))
	assert.NotNil(t, jobexec.PrePush(earlierBundlePod()), "the image's /app is not the bundle's to write")
}
