package cli_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// hangingServer is an API server that accepts requests and never answers them.
func hangingServer(t *testing.T) (url, kubeconfigPath string) {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	kc := clientcmdapi.NewConfig()
	kc.Clusters["hang"] = &clientcmdapi.Cluster{Server: srv.URL}
	kc.AuthInfos["me"] = &clientcmdapi.AuthInfo{Token: "token"}
	kc.Contexts["hang"] = &clientcmdapi.Context{Cluster: "hang", AuthInfo: "me"}
	kc.CurrentContext = "hang"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*kc, path))
	return srv.URL, path
}

func TestDeadline_HungAPIServer(t *testing.T) {
	t.Parallel()
	const deadline = 300 * time.Millisecond
	tests := []struct {
		args  []string
		doing string
	}{
		{args: []string{"describe", "rollout-3f9a1c0d2b7e4a51-1"}, doing: "get rollout rollout-3f9a1c0d2b7e4a51-1"},
		{args: []string{"approve", "rollout-3f9a1c0d2b7e4a51-1", "--reason", "r"}, doing: "get rollout rollout-3f9a1c0d2b7e4a51-1"},
		{args: []string{"revoke", "rollout-3f9a1c0d2b7e4a51-1", "--reason", "r"}, doing: "get rollout rollout-3f9a1c0d2b7e4a51-1"},
		{args: []string{"acknowledge", "rollout-3f9a1c0d2b7e4a51-1"}, doing: "get rollout rollout-3f9a1c0d2b7e4a51-1"},
		{args: []string{"reproduce"}, doing: "get clusterruntime cluster"},
	}
	for _, tt := range tests {
		t.Run(tt.args[0], func(t *testing.T) {
			t.Parallel()
			url, path := hangingServer(t)

			r := runAt(now, deadline, append(tt.args, "--kubeconfig", path, "--dir", t.TempDir())...)

			assert.Equal(t, 1, r.code)
			assert.Empty(t, r.stdout)
			assert.Equal(t, "error: "+tt.doing+": the API server at "+url+" did not answer within 300ms: deadline exceeded\n", r.stderr)
		})
	}
}
