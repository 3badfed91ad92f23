package argocd

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/types"

	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
)

// TestRevisionMemoComputesAgainOnlyForAChangedObject: an Application observed at
// the resourceVersion its revisions were computed at gets them from the memo; a new
// resourceVersion computes them again; an Application the last List did not return is
// forgotten; an object without identity is never memoized.
func TestRevisionMemoComputesAgainOnlyForAChangedObject(t *testing.T) {
	t.Parallel()
	memo := &revisionMemo{}
	app := observedApp("Synced", "Healthy", "Succeeded", false)
	app.UID, app.ResourceVersion = types.UID("app-1"), "10"
	first := memo.of(app)
	assert.Equal(t, revisionsOf(app), first)
	assert.NotEmpty(t, first.desired)

	app.Spec.Source.TargetRevision = "sha256:new" // a change memo.of cannot see at the same resourceVersion
	assert.Equal(t, first, memo.of(app), "the same resourceVersion is the same object: its revisions are kept")
	app.ResourceVersion = "11"
	assert.Equal(t, revisionsOf(app), memo.of(app), "a new resourceVersion computes them again")
	assert.NotEqual(t, first.desired, memo.of(app).desired)

	other := observedApp("Synced", "Healthy", "Succeeded", false)
	other.UID, other.ResourceVersion = types.UID("app-2"), "12"
	memo.of(other)
	memo.keep([]argov1.Application{*other})
	assert.NotContains(t, memo.byUID, types.UID("app-1"), "an Application the List did not return is forgotten")
	assert.Contains(t, memo.byUID, types.UID("app-2"))

	unnamed := observedApp("Synced", "Healthy", "Succeeded", false)
	assert.Equal(t, revisionsOf(unnamed), memo.of(unnamed))
	assert.Len(t, memo.byUID, 1, "an object without UID and resourceVersion is not memoized")
}
