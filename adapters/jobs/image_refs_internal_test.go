package jobs

import (
	"context"
	"path"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/sealtest"
)

const (
	testImage  = "registry.example/aicr:v1.1.0@sha256:0000000000000000000000000000000000000000000000000000000000000000"
	testCopier = "registry.example/aicr-operator:v1@sha256:1111111111111111111111111111111111111111111111111111111111111111"
)

func bundleSpec(args ...string) ports.JobSpec {
	return ports.JobSpec{Name: "aicr-bundle-x", Kind: ports.JobBundle,
		Args: append([]string{"--log-json", "bundle", "-o", "oci://registry.example/bundles/cluster:aicr-bundle-x"}, args...)}
}

// TestJob_BundleHandsImageRefsBack: a Job whose AICR pushes with --image-refs runs AICR as its
// init container, with the --image-refs directory and its working directory on emptyDirs of
// its own, then the operator image copying the file into its termination message from the
// same emptyDir read-only; any other Job runs AICR as its one container.
func TestJob_BundleHandsImageRefsBack(t *testing.T) {
	t.Parallel()
	r, err := New(Config{Namespace: "aicr-jobs", OperatorNamespace: "aicr-system", Image: testImage, CopierImage: testCopier, Sealer: sealtest.New()}, nil, nil)
	require.NoError(t, err)

	pod := r.job(bundleSpec("--image-refs", ports.JobImageRefsPath)).Spec.Template.Spec
	require.Len(t, pod.InitContainers, 1)
	require.Len(t, pod.Containers, 1)
	aicr, copier := pod.InitContainers[0], pod.Containers[0]
	assert.Equal(t, ContainerName, aicr.Name)
	assert.Equal(t, testImage, aicr.Image)
	assert.Equal(t, WorkDir, aicr.WorkingDir)
	emptyDirs := map[string]bool{}
	for _, v := range pod.Volumes {
		emptyDirs[v.Name] = v.EmptyDir != nil
	}
	mounts := map[string]corev1.VolumeMount{}
	for _, m := range aicr.VolumeMounts {
		mounts[m.MountPath] = m
	}
	for _, dir := range []string{path.Dir(ports.JobImageRefsPath), WorkDir} {
		m, ok := mounts[dir]
		require.True(t, ok, "AICR mounts %s", dir)
		assert.False(t, m.ReadOnly, dir)
		assert.True(t, emptyDirs[m.Name], "%s is an emptyDir", dir)
	}
	assert.Equal(t, ImageRefsContainerName, copier.Name)
	assert.Equal(t, testCopier, copier.Image)
	assert.Empty(t, copier.Command, "the image's entrypoint, the operator binary, runs")
	assert.Equal(t, []string{CopyImageRefsCommand, ports.JobImageRefsPath}, copier.Args)
	assert.Equal(t, []corev1.VolumeMount{{Name: mounts[path.Dir(ports.JobImageRefsPath)].Name,
		MountPath: path.Dir(ports.JobImageRefsPath), ReadOnly: true}}, copier.VolumeMounts)
	assert.Equal(t, corev1.TerminationMessageFallbackToLogsOnError, copier.TerminationMessagePolicy)
	assert.Equal(t, aicr.SecurityContext, copier.SecurityContext, "the restricted profile holds for both")
	assert.True(t, writesImageRefs(&pod))

	plain := r.job(bundleSpec()).Spec.Template.Spec
	assert.Empty(t, plain.InitContainers)
	require.Len(t, plain.Containers, 1)
	assert.Equal(t, ContainerName, plain.Containers[0].Name)
	assert.False(t, writesImageRefs(&plain))
}

// TestRunner_CopierImage: the copier image must be pinned by digest, and a runner without one
// refuses to start a Job whose digest it could not hand back.
func TestRunner_CopierImage(t *testing.T) {
	t.Parallel()
	cfg := Config{Namespace: "aicr-jobs", OperatorNamespace: "aicr-system", Image: testImage, CopierImage: "registry.example/aicr-operator:v1", Sealer: sealtest.New()}
	_, err := New(cfg, nil, nil)
	require.ErrorIs(t, err, ErrImageNotPinned)

	cfg.CopierImage = ""
	r, err := New(cfg, nil, nil)
	require.NoError(t, err)
	_, err = r.Start(context.Background(), bundleSpec("--image-refs", ports.JobImageRefsPath))
	require.ErrorContains(t, err, "no copier image")
}
