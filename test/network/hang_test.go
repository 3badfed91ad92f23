package network

import (
	"errors"
	"net"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHangHoldsUntilAnswer: a hang holds the requests under its prefix without an answer (the
// client's timeout ends them), serves the others, and once answered serves them again; the
// log shows each request held and each answered.
func TestHangHoldsUntilAnswer(t *testing.T) {
	t.Parallel()
	srv, err := Start(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	c := &http.Client{Transport: srv.Client().Transport, Timeout: 200 * time.Millisecond}
	get := func(path string) (int, error) {
		resp, gerr := c.Get(srv.URL() + path)
		if gerr != nil {
			return 0, gerr
		}
		_ = resp.Body.Close()
		return resp.StatusCode, nil
	}

	srv.Hang("/v2/")
	_, err = get("/v2/")
	var ne net.Error
	require.True(t, errors.As(err, &ne) && ne.Timeout(), "a held request ends at the client's timeout: %v", err)
	code, err := get("/upstream/none/index.yaml")
	require.NoError(t, err, "another prefix is served")
	assert.Equal(t, http.StatusNotFound, code)
	assert.Equal(t, 1, srv.Held())

	srv.Answer()
	code, err = get("/v2/")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, []string{HeldMark + "GET /v2/", "GET /upstream/none/index.yaml", "GET /v2/"}, srv.Requests())
}

// TestHangAfterBeginsOnceTheTriggerWasAnswered: HangAfter serves requests until one its trigger
// matches was answered, and holds the requests under its prefix from then on.
func TestHangAfterBeginsOnceTheTriggerWasAnswered(t *testing.T) {
	t.Parallel()
	srv, err := Start(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	c := &http.Client{Transport: srv.Client().Transport, Timeout: 200 * time.Millisecond}
	srv.HangAfter("/v2/", regexp.MustCompile(`^GET /upstream/`))
	for _, path := range []string{"/v2/", "/upstream/none/index.yaml"} {
		resp, gerr := c.Get(srv.URL() + path)
		require.NoError(t, gerr, "%s is served before the trigger", path)
		_ = resp.Body.Close()
	}
	_, err = c.Get(srv.URL() + "/v2/")
	require.Error(t, err, "held after the trigger")
	assert.Equal(t, 1, srv.Held())
}
