package trust_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/domain"
)

// projectAdminUser may edit the AppProjects of the engine namespace, as an Argo CD project
// administrator may, and nothing of the operator's.
const projectAdminUser = "project-admin-pia"

// TestAttack_AppProjectWidened: a project administrator widens the operator's AppProject (any
// source repository, any destination, every cluster-scoped kind), which no admission policy
// guards. The AppProject still exists; its spec is not the one the chart rendered, so the
// runtime and every rollout stall naming it until it is restored, with no engine write.
func TestAttack_AppProjectWidened(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	ctx := context.Background()
	project := appProject()
	patch := `{"spec":{"sourceRepos":["*"],"destinations":[{"server":"*","namespace":"*"}],` +
		`"clusterResourceWhitelist":[{"group":"*","kind":"*"}]}}`
	require.NoError(t, as(projectAdminUser).Patch(ctx, project, client.RawPatch(types.MergePatchType, []byte(patch))))
	t.Cleanup(func() { restoreAppProject(t) })

	waitCondition(t, "Stalled", string(domain.StallAdmissionPolicyMissing),
		"AppProject argocd/aicr is not what the chart rendered")
	waitRolloutStalled(t, w.awaiting, string(domain.StallAdmissionPolicyMissing))
	restoreAppProject(t)
	waitRolloutStalled(t, w.awaiting, string(domain.StallAwaitingApproval))
}

// appProject is the operator's AppProject, by name, as an unstructured object.
func appProject() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("argoproj.io/v1alpha1")
	u.SetKind("AppProject")
	u.SetNamespace("argocd")
	u.SetName("aicr")
	return u
}

// restoreAppProject puts the AppProject's spec back as the chart renders it.
func restoreAppProject(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	for _, o := range rendered {
		if o.GetKind() != "AppProject" {
			continue
		}
		live := appProject()
		require.NoError(t, k8s.Get(ctx, client.ObjectKeyFromObject(live), live))
		live.Object["spec"] = o.DeepCopy().Object["spec"]
		require.NoError(t, k8s.Update(ctx, live))
		return
	}
	t.Fatal("the chart renders no AppProject")
}
