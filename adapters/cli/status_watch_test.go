package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
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
