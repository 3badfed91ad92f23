package env

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	apimachineryversion "k8s.io/apimachinery/pkg/version"
)

// TestAssetsDirSelectsTheRequestedRelease checks that AICR_ENVTEST_K8S selects the cache
// directory of its release, that KUBEBUILDER_ASSETS overrides it and that a bad value or a
// missing binary is a clear error.
func TestAssetsDirSelectsTheRequestedRelease(t *testing.T) {
	tests := []struct {
		name, assets, requested, built string
		want, wantErr                  string
	}{
		{name: "unset selects the oldest supported release", built: "k8s-" + K8sVersion, want: "k8s-" + K8sVersion},
		{name: "a release selects its cache directory", requested: "1.37.2", built: "k8s-1.37.2", want: "k8s-1.37.2"},
		{name: "a leading v is dropped", requested: "v1.37.2", built: "k8s-1.37.2", want: "k8s-1.37.2"},
		{name: "KUBEBUILDER_ASSETS wins", assets: "elsewhere", requested: "1.37.2", want: "elsewhere"},
		{name: "a release without binaries", requested: "1.37.2", built: "k8s-" + K8sVersion,
			wantErr: "K8S_VERSION=1.37.2 test/tools/envtest-bins.sh builds it"},
		{name: "not a release", requested: "latest", wantErr: `AICR_ENVTEST_K8S="latest" is not a Kubernetes release`},
		{name: "a minor without its patch", requested: "1.37", wantErr: `AICR_ENVTEST_K8S="1.37" is not a Kubernetes release`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cache := t.TempDir()
			t.Setenv("XDG_CACHE_HOME", cache)
			t.Setenv("AICR_ENVTEST_CACHE", "")
			t.Setenv("KUBEBUILDER_ASSETS", tt.assets)
			t.Setenv(K8sVersionEnv, tt.requested)
			if tt.built != "" {
				dir := filepath.Join(cache, "aicr-operator", tt.built)
				require.NoError(t, os.MkdirAll(dir, 0o755))
				for _, bin := range []string{"kube-apiserver", "etcd"} {
					require.NoError(t, os.WriteFile(filepath.Join(dir, bin), nil, 0o755))
				}
			}
			got, err := AssetsDir()
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			if tt.assets == "" {
				tt.want = filepath.Join(cache, "aicr-operator", tt.want)
			}
			require.Equal(t, tt.want, got)
		})
	}
}

// TestCheckServerVersionRejectsAnotherRelease checks that a started kube-apiserver of another
// release than AICR_ENVTEST_K8S selects fails the start, and that without a selection any
// release is accepted.
func TestCheckServerVersionRejectsAnotherRelease(t *testing.T) {
	tests := []struct {
		name, requested, server, wantErr string
	}{
		{name: "the selected release", requested: "1.37.2", server: "v1.37.2"},
		{name: "no selection", server: "v1.35.0"},
		{name: "another release", requested: "1.37.2", server: "v1.34.4",
			wantErr: "the kube-apiserver in /bin is v1.34.4, but AICR_ENVTEST_K8S selects 1.37.2"},
		{name: "an unversioned build", requested: "1.37.2", server: "v0.0.0-master+$Format:%H$",
			wantErr: "the kube-apiserver in /bin is v0.0.0-master"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(K8sVersionEnv, tt.requested)
			err := checkServerVersion(&apimachineryversion.Info{GitVersion: tt.server}, "/bin")
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
		})
	}
}
