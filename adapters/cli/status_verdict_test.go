package cli

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
)

// verdictCases are the verdicts on a rollout in each phase, without a Stalled condition.
var verdictCases = map[aicrv1alpha1.Phase]verdict{
	aicrv1alpha1.PhasePending:                 inProgress,
	aicrv1alpha1.PhaseAwaitingApproval:        inProgress,
	aicrv1alpha1.PhaseProgressing:             inProgress,
	aicrv1alpha1.PhaseAwaitingAcknowledgement: inProgress,
	aicrv1alpha1.PhaseValidating:              inProgress,
	aicrv1alpha1.PhaseSucceeded:               succeeded,
	aicrv1alpha1.PhaseFailed:                  unsuccessful,
	aicrv1alpha1.PhaseExpired:                 unsuccessful,
	aicrv1alpha1.PhaseRevoked:                 unsuccessful,
	aicrv1alpha1.PhaseSuperseded:              unsuccessful,
	aicrv1alpha1.PhaseOrphaned:                unsuccessful,
}

func TestJudge_EveryPhase(t *testing.T) {
	for phase, want := range verdictCases {
		t.Run(string(phase), func(t *testing.T) {
			ro := &aicrv1alpha1.RuntimeRollout{ObjectMeta: metav1.ObjectMeta{Name: "rollout-1"}}
			ro.Status.Phase, ro.Status.Message = phase, "what the operator says"
			got, err := judge(ro)
			assert.Equal(t, want, got)
			if want == unsuccessful {
				require.ErrorIs(t, err, ErrRolloutUnsuccessful)
				assert.EqualError(t, err, "rollout rollout-1 ended without succeeding: "+string(phase)+": what the operator says")
			} else {
				require.NoError(t, err)
			}
		})
	}
}

// TestJudge_EveryPhaseHasACase fails when the API gains a phase verdictCases does not judge.
func TestJudge_EveryPhaseHasACase(t *testing.T) {
	raw, err := os.ReadFile("../../charts/aicr-operator/templates/crds/operator.aicr.run_runtimerollouts.yaml")
	require.NoError(t, err)
	crd := &apiextensionsv1.CustomResourceDefinition{}
	require.NoError(t, yaml.Unmarshal(raw, crd))
	require.Len(t, crd.Spec.Versions, 1)
	enum := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["status"].Properties["phase"].Enum
	require.NotEmpty(t, enum)
	for _, e := range enum {
		var phase aicrv1alpha1.Phase
		require.NoError(t, json.Unmarshal(e.Raw, &phase))
		assert.Contains(t, verdictCases, phase, "phase %s has no verdict case", phase)
	}
	assert.Len(t, verdictCases, len(enum))
}

func TestJudge_OutcomeLabelWinsOverPhase(t *testing.T) {
	ro := &aicrv1alpha1.RuntimeRollout{ObjectMeta: metav1.ObjectMeta{Name: "rollout-1",
		Labels: map[string]string{aicrv1alpha1.LabelOutcome: string(aicrv1alpha1.PhaseRevoked)}}}
	ro.Status.Phase = aicrv1alpha1.PhaseProgressing
	got, err := judge(ro)
	assert.Equal(t, unsuccessful, got)
	require.ErrorIs(t, err, ErrRolloutUnsuccessful)
	assert.Equal(t, "rollout-1: Revoked", statusLine(ro))
}

func TestJudge_Stalled(t *testing.T) {
	cases := []struct {
		name       string
		reason     domain.StallReason
		generation int64
		want       verdict
	}{
		{name: "another reason", reason: domain.StallEngineMissing, generation: 3, want: unsuccessful},
		{name: "waiting for an approver", reason: domain.StallAwaitingApproval, generation: 3, want: inProgress},
		{name: "waiting for an acknowledgement", reason: domain.StallAwaitingAcknowledgement, generation: 3, want: inProgress},
		{name: "for an earlier spec", reason: domain.StallEngineMissing, generation: 2, want: inProgress},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			ro := &aicrv1alpha1.RuntimeRollout{ObjectMeta: metav1.ObjectMeta{Name: "rollout-1", Generation: 3}}
			ro.Status.Phase = aicrv1alpha1.PhaseProgressing
			ro.Status.Conditions = []metav1.Condition{{Type: aicrv1alpha1.ConditionStalled, Status: metav1.ConditionTrue,
				Reason: string(tt.reason), Message: "no Argo CD", ObservedGeneration: tt.generation}}
			got, err := judge(ro)
			assert.Equal(t, tt.want, got)
			if tt.want == unsuccessful {
				assert.EqualError(t, err, "rollout rollout-1 is stalled: "+string(tt.reason)+": no Argo CD")
			} else {
				require.NoError(t, err)
			}
		})
	}
}

func TestStatusLine(t *testing.T) {
	ro := &aicrv1alpha1.RuntimeRollout{ObjectMeta: metav1.ObjectMeta{Name: "rollout-1"}}
	assert.Equal(t, "rollout-1: no status yet", statusLine(ro))
	ro.Spec.Steps = []aicrv1alpha1.Step{{Release: "gpu-operator"}, {Release: "nvsentinel"}}
	ro.Status.Phase, ro.Status.CurrentStep, ro.Status.Message = aicrv1alpha1.PhaseProgressing, 2, "syncing nvsentinel"
	assert.Equal(t, "rollout-1: Progressing, step 2/2 nvsentinel: syncing nvsentinel", statusLine(ro))
	ro.Status.Releases = []aicrv1alpha1.ReleaseStatus{{Release: "gpu-operator", State: aicrv1alpha1.ReleaseReady},
		{Release: "nvsentinel", State: aicrv1alpha1.ReleaseInFlight}}
	assert.Equal(t, "rollout-1: Progressing, step 2/2 nvsentinel InFlight: syncing nvsentinel", statusLine(ro))
	ro.Status.CurrentStep = 3
	assert.Equal(t, "rollout-1: Progressing: syncing nvsentinel", statusLine(ro), "a step beyond the spec is not named")
}
