package cli_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/argocd"
	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/clock"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/argocdsim"
)

// TestDescribe_ShowsArgoCDsViewOfEachStep: an approver's describe (the chart's applications
// Role in the engine namespace lets approvers read them) shows, next to the state the operator
// recorded, the sync and health of each step's Application as the operator wrote it and Argo CD
// settled it, found by the namespace the target plan gives the release: a degraded release with
// Argo CD's message, another runtime's Application as foreign without its health, a missing one
// as not found; -o json carries the same.
func TestDescribe_ShowsArgoCDsViewOfEachStep(t *testing.T) {
	needEnv(t)
	t.Parallel()
	ctx := context.Background()
	plan, _ := storedPlan{seed: "engine view", source: domain.SourceResolved,
		more: []string{"nvsentinel", "kai-scheduler", "nvidia-dra-driver-gpu"}}.create(t)
	ro := newRollout()
	ro.Spec.ToPlanDigest = plan
	ro.Spec.Steps = append(ro.Spec.Steps, aicrv1alpha1.Step{Release: "nvidia-dra-driver-gpu",
		Operation: aicrv1alpha1.OperationInstall, Assessment: "none"})
	name := fixture{ro: ro, status: &aicrv1alpha1.RuntimeRolloutStatus{
		Phase: aicrv1alpha1.PhaseProgressing, CurrentStep: 3, Releases: []aicrv1alpha1.ReleaseStatus{
			{Release: "gpu-operator", State: "Ready"}, {Release: "nvsentinel", State: "Ready"},
			{Release: "kai-scheduler", State: "InFlight"},
		}}}.create(t)
	t.Cleanup(func() { deleteRollout(t, name) })
	admin := clientFor(testEnv.Config)
	engine := argocd.NewEngine(admin, nil, argocd.Config{Registry: "registry.example.com/aicr"})
	sim := argocdsim.New(admin, argocd.DefaultNamespace, clock.NewFake(now))
	ours := string(getRuntime(t).UID)
	for _, app := range []struct {
		id, owner string
		mode      argocdsim.Mode
	}{
		{"gpu-operator", ours, argocdsim.Healthy},
		{"nvsentinel", ours, argocdsim.Degraded},
		{"kai-scheduler", "uid-of-another-runtime", argocdsim.Healthy},
	} {
		ref := ports.ReleaseRef{ID: app.id, Namespace: app.id}
		require.NoError(t, engine.Apply(ctx, appliedAsPlanned(plan, app.id, app.owner)))
		t.Cleanup(func() {
			app := &argov1.Application{ObjectMeta: metav1.ObjectMeta{Namespace: argocd.DefaultNamespace,
				Name: argocd.ApplicationName(ref)}}
			require.NoError(t, client.IgnoreNotFound(admin.Delete(ctx, app)), "the next run (-count) starts without it")
		})
		sim.SetMode(ref, app.mode)
		_, err := sim.Settle(ctx, ref)
		require.NoError(t, err)
	}

	r := run(approverUser, "describe", name)

	requireOK(t, r)
	assert.Regexp(t, `\n\s+STEP\s+RELEASE\s+OPERATION\s+ASSESSMENT\s+CRDS\s+SYNC\s+HEALTH\s+STATE\n`+
		`\s+1/4\s+gpu-operator\s+Upgrade\s+manual\s+changes CRDs\s+Synced\s+Healthy\s+Ready\n`+
		`\s+2/4\s+nvsentinel\s+Upgrade\s+manual\s+-\s+Synced\s+Degraded\s+Ready\n`+
		`\s+3/4\s+kai-scheduler\s+Install\s+none\s+-\s+foreign\s+-\s+in flight\n`+
		`\s+4/4\s+nvidia-dra-driver-gpu\s+Install\s+none\s+-\s+not found\s+-\s+Pending\n`+
		`Argo CD details:\n`+
		`  2/4 nvsentinel: a resource of the release is Degraded: argocd app get argocd/nvsentinel.nvsentinel shows which\n`+
		`  3/4 kai-scheduler: its Application records runtime uid-of-another-runtime, not this one: its state is not this step's\n\n`,
		r.stdout)

	r = run(approverUser, "describe", name, "-o", "json")

	requireOK(t, r)
	var doc struct {
		Steps []struct {
			Engine json.RawMessage `json:"engine"`
		} `json:"steps"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc))
	require.Len(t, doc.Steps, 4)
	assert.JSONEq(t, `{"sync":"Synced","health":"Healthy","operation":"Succeeded"}`, string(doc.Steps[0].Engine))
	assert.JSONEq(t, `{"sync":"Foreign","ownerRuntimeUID":"uid-of-another-runtime"}`, string(doc.Steps[2].Engine))
	assert.JSONEq(t, `{"sync":"NotFound"}`, string(doc.Steps[3].Engine))
}
