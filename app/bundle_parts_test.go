package app_test

import (
	"context"
	"fmt"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"

	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/mocks"
	"github.com/NVIDIA/aicr/ports"
)

const pulledDigest = ports.Digest("sha256:2c")

// TestPullBundleParts: a plan's bundle pulled again by its digest gives its releases' values
// and recipe; a bundle the registry no longer holds or rejects, or one that does not read,
// leaves nothing to rebuild from; credential problems stall; anything else is transient.
func TestPullBundleParts(t *testing.T) {
	t.Parallel()
	files := fstest.MapFS{"recipe.yaml": {Data: []byte("kind: RecipeResult\n")}}
	read := ports.Bundle{Layout: ports.LayoutV1, Releases: []ports.BundleRelease{
		{Name: "cert-manager", Values: map[string]any{"replicaCount": float64(2)}}, {Name: "gpu-operator"},
	}}
	for _, tt := range []struct {
		name      string
		pulled    fs.FS
		pullErr   error
		readErr   error
		want      *app.BundleParts
		why       string
		stall     domain.StallReason
		transient bool
	}{
		{name: "values and recipe", pulled: files, want: &app.BundleParts{
			Values: map[string]map[string]any{"cert-manager": {"replicaCount": float64(2)}, "gpu-operator": nil},
			Recipe: []byte("kind: RecipeResult\n")}},
		{name: "no recipe", pulled: fstest.MapFS{}, want: &app.BundleParts{
			Values: map[string]map[string]any{"cert-manager": {"replicaCount": float64(2)}, "gpu-operator": nil}}},
		{name: "gone from the registry", pullErr: fmt.Errorf("manifest unknown: %w", ports.ErrArtifactNotFound),
			why: "bundle sha256:2c: manifest unknown: " + ports.ErrArtifactNotFound.Error()},
		{name: "rejected", pullErr: ports.ErrBundleRejected, why: "bundle sha256:2c: " + ports.ErrBundleRejected.Error()},
		{name: "does not read", pulled: files, readErr: fmt.Errorf("no bundle-info"), why: "bundle sha256:2c does not read: no bundle-info"},
		{name: "stale credentials", pullErr: ports.ErrCredentialsStale, stall: domain.StallRegistryCredentialsStale},
		{name: "flaky registry", pullErr: errFlaky, transient: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctrl := gomock.NewController(t)
			reg, reader := mocks.NewMockRegistry(ctrl), mocks.NewMockBundleReader(ctrl)
			reg.EXPECT().PullBundle(gomock.Any(), pulledDigest).Return(tt.pulled, tt.pullErr)
			if tt.pullErr == nil {
				reader.EXPECT().ReadBundle(tt.pulled).Return(read, tt.readErr)
			}
			parts, why, stall, err := app.PullBundleParts(context.Background(), reg, reader, pulledDigest)
			assert.Equal(t, tt.want, parts)
			assert.Equal(t, tt.why, why)
			if tt.stall != "" {
				require.NotNil(t, stall)
				assert.Equal(t, tt.stall, stall.Reason())
			} else {
				assert.Nil(t, stall)
			}
			assert.Equal(t, tt.transient, err != nil, "%v", err)
		})
	}
}
