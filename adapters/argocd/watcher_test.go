package argocd_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fakediscovery "k8s.io/client-go/discovery/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/nvidia/aicr-operator/adapters/argocd"
)

var errStart = errors.New("cache not ready")

// TestWatcherRetriesAFailedStart: the watch starts once the kind is served;
// a failed start is retried, a successful one never repeated.
func TestWatcherRetriesAFailedStart(t *testing.T) {
	t.Parallel()
	dc := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{}}
	calls, fail := 0, true
	w := argocd.NewWatcher(dc, func() error {
		calls++
		if fail {
			return errStart
		}
		return nil
	})
	watching, err := w.Ensure()
	require.NoError(t, err)
	assert.False(t, watching)
	assert.Zero(t, calls)

	dc.Resources = []*metav1.APIResourceList{{GroupVersion: "argoproj.io/v1alpha1",
		APIResources: []metav1.APIResource{{Name: "applications", Kind: "Application"}}}}
	_, err = w.Ensure()
	require.ErrorIs(t, err, errStart)
	fail = false
	for range 2 {
		watching, err = w.Ensure()
		require.NoError(t, err)
		assert.True(t, watching)
	}
	assert.Equal(t, 2, calls)

	dc.Resources[0].APIResources = []metav1.APIResource{{Name: "appprojects", Kind: "AppProject"}}
	served, err := argocd.ApplicationServed(dc)
	require.NoError(t, err)
	assert.False(t, served, "the group alone is not the Application kind")
}
