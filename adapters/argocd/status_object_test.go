package argocd

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestObserveNamesTheApplication: the status names the Application as Argo CD's users know it,
// so a rollout waiting on it says which one.
func TestObserveNamesTheApplication(t *testing.T) {
	t.Parallel()
	app := observedApp("OutOfSync", "Progressing", "Running", false)
	app.Namespace, app.Name = DefaultNamespace, "aicr-gpu-operator-0123"
	assert.Equal(t, "Application "+DefaultNamespace+"/aicr-gpu-operator-0123", observe(app).Object)
}
