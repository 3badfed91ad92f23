package oci_test

import (
	"context"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nvidia/aicr-operator/adapters/aicr"
	"github.com/nvidia/aicr-operator/ports"
)

const (
	fixtureBundle = "../../test/testdata/aicr/v1-layout-synthetic-eks-h100-ubuntu-training-kubeflow/bundle-helm"
	planDigest    = "sha256:3f9a1c0d2b7e4a51aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
)

func TestPushBundle_PullByDigestReturnsTheSameTree(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg, _ := newRegistry(t)
	src := os.DirFS(fixtureBundle)

	d, err := reg.PushBundle(ctx, planDigest, src)
	require.NoError(t, err)
	assert.Regexp(t, `^sha256:[a-f0-9]{64}$`, string(d))

	got, err := reg.PullBundle(ctx, d)
	require.NoError(t, err)
	n := 0
	require.NoError(t, fs.WalkDir(src, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		n++
		want, err := fs.ReadFile(src, p)
		require.NoError(t, err)
		have, err := fs.ReadFile(got, p)
		require.NoError(t, err, p)
		assert.Equal(t, want, have, p)
		return nil
	}))
	pulled, err := fs.Glob(got, "*/*")
	require.NoError(t, err)
	assert.NotEmpty(t, pulled)
	t.Logf("bundle of %d files pushed as %s", n, d)

	wantBundle, err := aicr.ReadDir(fixtureBundle)
	require.NoError(t, err)
	gotBundle, err := aicr.ReadBundle(got)
	require.NoError(t, err, "the pulled bundle is readable by the bundle reader")
	assert.Equal(t, wantBundle, gotBundle)

	again, err := reg.PushBundle(ctx, planDigest, src)
	require.NoError(t, err)
	assert.Equal(t, d, again, "pushing the same bundle is idempotent")
	tagged, err := reg.Resolve(ctx, reg.Base()+"/bundles/cluster:plan-3f9a1c0d2b7e4a51-"+strings.TrimPrefix(string(d), "sha256:"))
	require.NoError(t, err)
	assert.Equal(t, d, tagged)
}

func TestPullBundle_UnknownDigestIsArtifactNotFound(t *testing.T) {
	t.Parallel()
	reg, _ := newRegistry(t)
	_, err := reg.PullBundle(context.Background(), ports.Digest("sha256:"+hexDigest([]byte("none"))))
	require.ErrorIs(t, err, ports.ErrArtifactNotFound)
}

func TestPushWrapper_LocalChartGoesToWrappers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg, _ := newRegistry(t)
	chart, err := fs.Sub(os.DirFS(fixtureBundle), "010-gpu-operator-post")
	require.NoError(t, err)

	pc, err := reg.PushWrapper(ctx, chart)
	require.NoError(t, err)
	assert.Equal(t, reg.Base()+"/wrappers/gpu-operator-post", pc.Repository)
	assert.Equal(t, "gpu-operator-post", pc.Name)
	assert.Equal(t, "1.1.0", pc.Version)
	d, err := reg.Resolve(ctx, pc.Repository+":1.1.0")
	require.NoError(t, err)
	assert.Equal(t, pc.ManifestDigest, d)

	again, err := reg.PushWrapper(ctx, chart)
	require.NoError(t, err)
	assert.Equal(t, pc, again, "packaging is reproducible")
}
