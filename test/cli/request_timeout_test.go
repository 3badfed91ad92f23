package cli_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/NVIDIA/aicr/adapters/aicr"
	"github.com/NVIDIA/aicr/adapters/cli"
)

// TestRequestTimeout_FlagIsTheDeadline: --request-timeout sets every API command's deadline,
// version and rollout-name completion included, against an API server that never answers.
func TestRequestTimeout_FlagIsTheDeadline(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"describe", "rollout-3f9a1c0d2b7e4a51-1"},
		{"approve", "rollout-3f9a1c0d2b7e4a51-1", "--reason", "r"},
		{"revoke", "rollout-3f9a1c0d2b7e4a51-1", "--reason", "r"},
		{"acknowledge", "rollout-3f9a1c0d2b7e4a51-1"},
		{"reproduce"},
		{"version"},
	} {
		t.Run(args[0], func(t *testing.T) {
			t.Parallel()
			url, path := hangingServer(t)

			r := runAt(now, 0, append(args, "--kubeconfig", path, "--dir", t.TempDir(), "--request-timeout", "250ms")...)

			assert.Equal(t, 1, r.code)
			assert.Contains(t, r.stderr, "the API server at "+url+" did not answer within 250ms: deadline exceeded\n")
		})
	}
	t.Run("completion", func(t *testing.T) {
		t.Parallel()
		_, path := hangingServer(t)

		r := runAt(now, 0, "__complete", "describe", "--kubeconfig", path, "--request-timeout", "250ms", "")

		assert.Equal(t, 0, r.code, "completion reports its failure in the directive")
		assert.Equal(t, ":5\n", r.stdout, "ShellCompDirectiveError|NoFileComp, no candidates")
	})
}

// TestRequestTimeout_DefaultAndRefused: the default deadline is 30s, and a negative one is
// refused before anything is sent.
func TestRequestTimeout_DefaultAndRefused(t *testing.T) {
	t.Parallel()
	streams, _, _, _ := genericiooptions.NewTestIOStreams()
	root := cli.NewRootCommand(cli.NewOptions(streams))
	f := root.PersistentFlags().Lookup("request-timeout")
	require.NotNil(t, f)
	assert.Equal(t, "30s", f.DefValue)

	r := runAt(now, 0, "describe", "rollout-3f9a1c0d2b7e4a51-1", "--kubeconfig", "/nonexistent", "--request-timeout", "-1s")
	requireRefused(t, r, "--request-timeout must not be negative: -1s")
}

// TestRequestTimeout_ZeroWaitsForTheCaller: --request-timeout 0 sets no deadline (kubectl's
// meaning): the request reaches the server and the command ends when its caller cancels.
func TestRequestTimeout_ZeroWaitsForTheCaller(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	go func() {
		<-arrived
		cancel()
	}()
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	o := cli.NewOptions(streams)
	o.Bundles = aicr.Reader{}

	code := cli.Run(ctx, o, []string{"describe", "rollout-3f9a1c0d2b7e4a51-1",
		"--kubeconfig", kubeconfigFor(t, srv.URL), "--request-timeout", "0"})

	assert.Equal(t, 1, code)
	assert.Empty(t, out.String())
	assert.Contains(t, errOut.String(), "error: get rollout rollout-3f9a1c0d2b7e4a51-1: ")
	assert.Contains(t, errOut.String(), "context canceled")
	assert.NotContains(t, errOut.String(), "deadline exceeded")
}

// kubeconfigFor writes a kubeconfig for the API server at url.
func kubeconfigFor(t *testing.T, url string) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["c"] = &clientcmdapi.Cluster{Server: url}
	kc.AuthInfos["me"] = &clientcmdapi.AuthInfo{Token: "token"}
	kc.Contexts["c"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "me"}
	kc.CurrentContext = "c"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*kc, path))
	return path
}
