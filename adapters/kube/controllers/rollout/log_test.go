package rollout

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// TestReconcile_LogsEveryDecision: at info level the rollout controller writes one line per
// step start and end and per rollout transition, with the rollout, its plan, the step and the
// release, and the same lines for the Events a failed write owed.
func TestReconcile_LogsEveryDecision(t *testing.T) {
	inFlight := aicrv1alpha1.RuntimeRolloutStatus{Phase: aicrv1alpha1.PhaseProgressing, CurrentStep: 1, Releases: []aicrv1alpha1.ReleaseStatus{
		{Release: "release-a", State: aicrv1alpha1.ReleaseInFlight}, {Release: "release-b", State: aicrv1alpha1.ReleasePending},
	}}
	internal := apierrors.NewInternalError(errors.New("etcd unavailable"))
	r, key := lostStartReconciler(t, inFlight, inFlight, internal, true, record.NewFakeRecorder(16))
	var lines []map[string]any
	log := funcr.NewJSON(func(obj string) {
		var line map[string]any
		require.NoError(t, json.Unmarshal([]byte(obj), &line))
		lines = append(lines, line)
	}, funcr.Options{Verbosity: 0})
	_, err := r.Reconcile(logr.NewContext(context.Background(), log), ctrl.Request{NamespacedName: key})
	require.Error(t, err, "the status write fails: its Events and lines are the owed ones")
	var got [][4]any
	plan := ""
	for _, l := range lines {
		assert.Equal(t, key.Name, l["rollout"], l["msg"])
		plan = l["plan"].(string)
		reason, _, _ := strings.Cut(l["msg"].(string), ":")
		got = append(got, [4]any{reason, l["step"], l["release"], l["phase"]})
	}
	assert.NotEmpty(t, plan)
	assert.Equal(t, [][4]any{
		{"StepSucceeded", "1/2", "release-a", "Progressing"},
		{"StepStarted", "2/2", "release-b", "Progressing"},
		{"StepSucceeded", "2/2", "release-b", "Progressing"},
		{"RolloutEnded", nil, nil, "Succeeded"},
	}, got)
}
