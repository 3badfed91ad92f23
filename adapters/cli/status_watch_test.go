package cli

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// TestFollower_ErrorEvents: an expired resourceVersion reads the rollout again, any other error
// ends the follow with it.
func TestFollower_ErrorEvents(t *testing.T) {
	f := &follower{name: "rollout-1"}
	expired := apierrors.NewResourceExpired("resource version 1 expired").ErrStatus
	done, err := f.onEvent(watch.Event{Type: watch.Error, Object: &expired})
	assert.True(t, done)
	require.ErrorIs(t, err, errReread)

	forbidden := apierrors.NewForbidden(schema.GroupResource{Group: "operator.aicr.run", Resource: "runtimerollouts"},
		"rollout-1", nil).ErrStatus
	done, err = f.onEvent(watch.Event{Type: watch.Error, Object: &forbidden})
	assert.True(t, done)
	require.NotErrorIs(t, err, errReread)
	assert.True(t, apierrors.IsForbidden(err), "%v", err)
	assert.Contains(t, err.Error(), "watch rollout rollout-1: ")

	done, err = f.onEvent(watch.Event{Type: watch.Bookmark})
	assert.False(t, done)
	require.NoError(t, err)
}

// TestFollower_AnotherRolloutOfTheSameName: a rollout read after the followed one was deleted
// and another created under its name ends the follow; it is never reported as the one followed.
func TestFollower_AnotherRolloutOfTheSameName(t *testing.T) {
	var out bytes.Buffer
	f := &follower{s: &session{o: &Options{IOStreams: genericiooptions.IOStreams{Out: &out}}}, name: "rollout-1"}
	ro := &aicrv1alpha1.RuntimeRollout{ObjectMeta: metav1.ObjectMeta{Name: "rollout-1", UID: "uid-1"}}
	ro.Status.Phase = aicrv1alpha1.PhaseProgressing
	done, err := f.observe(ro)
	require.NoError(t, err)
	assert.False(t, done)

	other := ro.DeepCopy()
	other.UID, other.Status.Phase = "uid-2", aicrv1alpha1.PhaseSucceeded
	done, err = f.observe(other)
	assert.True(t, done)
	require.ErrorIs(t, err, ErrRolloutDeleted)
	assert.Equal(t, "rollout-1: Progressing\n", out.String())
}
