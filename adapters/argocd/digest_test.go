package argocd_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/NVIDIA/aicr/adapters/argocd"
	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/ports"
)

// TestSpecDigestJudgesTheSpecNotTheAnnotations: the digest Status reports is the one SpecDigest
// renders from the plan's ReleaseSpec once Apply wrote it; a hand edit of what the engine owns
// (a Helm parameter, the values) changes it, forged ownership annotations and a suspension do
// not, and the engine's next write repairs the edit.
func TestSpecDigestJudgesTheSpecNotTheAnnotations(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e, _ := newEngine(t, cp.Config, argocd.Config{})
	s := release("digest", "digest")
	require.NoError(t, e.Apply(ctx, s))
	planned, err := e.SpecDigest(s)
	require.NoError(t, err)
	require.Regexp(t, `^sha256:[0-9a-f]{64}$`, planned)
	status := func() ports.ReleaseStatus {
		st, statusErr := e.Status(ctx, s.Ref)
		require.NoError(t, statusErr)
		return st
	}
	assert.True(t, status().Matches(planned), "the written Application is the plan's")

	other := s
	other.Owner = ports.ReleaseOwner{RuntimeUID: "another", PlanDigest: "sha256:another", Rollout: "rollout-x"}
	again, err := e.SpecDigest(other)
	require.NoError(t, err)
	assert.Equal(t, planned, again, "the owner does not enter the digest")

	mergePatchApp(t, s.Ref, `{"metadata": {"annotations": {"aicr.run/plan-digest": "sha256:forged", "aicr.run/rollout": "rollout-forged"}}}`)
	assert.True(t, status().Matches(planned), "annotations are not the spec")
	require.NoError(t, e.Suspend(ctx, s.Ref, s.Owner, true))
	assert.True(t, status().Matches(planned), "the automation's switch is not the plan's spec")
	require.NoError(t, e.Suspend(ctx, s.Ref, s.Owner, false))

	for name, patch := range map[string]string{
		"helm parameter": `{"spec": {"source": {"helm": {"parameters": [{"name": "driver.version", "value": "1.0.0"}]}}}}`,
		"values":         `{"spec": {"source": {"helm": {"valuesObject": {"driver": {"enabled": false}}}}}}`,
		"project":        `{"spec": {"project": "default"}}`,
	} {
		mergePatchApp(t, s.Ref, patch)
		assert.False(t, status().Matches(planned), "a hand-edited %s is drift", name)
		require.NoError(t, e.Apply(ctx, s))
		assert.True(t, status().Matches(planned), "the next write repairs the %s", name)
	}
}

// TestUnplannedReportsApplicationsCreatedOutOfBand: an Application in the operator's AppProject
// that is the Application of no planned release is reported, with or without the operator's
// labels; one of another project is not the operator's concern.
func TestUnplannedReportsApplicationsCreatedOutOfBand(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e, _ := newEngine(t, cp.Config, argocd.Config{})
	s := release("unplanned", "planned")
	require.NoError(t, e.Apply(ctx, s))
	create := func(name, project string) {
		app := &argov1.Application{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: argocd.DefaultNamespace},
			Spec: argov1.ApplicationSpec{Project: project, Destination: argov1.ApplicationDestination{
				Server: argocd.InClusterServer, Namespace: "unplanned"}}}
		require.NoError(t, admin.Create(ctx, app))
	}
	create("unplanned.out-of-band", argocd.DefaultProject)
	create("unplanned.elsewhere", "default")
	got, err := e.Unplanned(ctx, []ports.ReleaseRef{s.Ref})
	require.NoError(t, err)
	assert.Contains(t, got, "unplanned.out-of-band")
	assert.NotContains(t, got, "unplanned.elsewhere")
	assert.NotContains(t, got, argocd.ApplicationName(s.Ref))
}
