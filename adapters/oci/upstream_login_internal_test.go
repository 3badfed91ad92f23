package oci

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHelmBasicAuth_OnlyTheLoginsHostGetsIt: the Helm transport adds the login to requests on
// its repository's host only, whatever the redirect policy follows: here net/http's own, which
// follows a redirect to any host.
func TestHelmBasicAuth_OnlyTheLoginsHostGetsIt(t *testing.T) {
	t.Parallel()
	seen := map[string]chan string{"repo": make(chan string, 4), "other": make(chan string, 4)}
	record := func(name string, next http.HandlerFunc) *httptest.Server {
		srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen[name] <- r.Header.Get("Authorization")
			next(w, r)
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	other := record("other", func(http.ResponseWriter, *http.Request) {})
	repo := record("repo", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/nvidia/chart.tgz", http.StatusFound)
	})
	client := &http.Client{Transport: helmBasicAuth{repo.Client().Transport}}
	ctx := withHelmLogin(context.Background(), mustURL(t, repo.URL+"/nvidia/"),
		upstreamLogin{Login: Login{Username: "$oauthtoken", Password: "ngc-api-key"}, secret: "ngc-helm"})

	for _, u := range []string{repo.URL + "/nvidia/index.yaml", other.URL + "/nvidia/index.yaml"} {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		require.NoError(t, err)
		resp, err := client.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
	}

	close(seen["repo"])
	close(seen["other"])
	var repoAuth, otherAuth []string
	for a := range seen["repo"] {
		repoAuth = append(repoAuth, a)
	}
	for a := range seen["other"] {
		otherAuth = append(otherAuth, a)
	}
	want := (&http.Request{Header: http.Header{}})
	want.SetBasicAuth("$oauthtoken", "ngc-api-key")
	assert.Equal(t, []string{want.Header.Get("Authorization")}, repoAuth, "the repository's host gets the login")
	assert.Equal(t, []string{"", ""}, otherAuth, "another host gets it neither redirected to nor asked directly")
}
