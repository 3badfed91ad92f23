package controller

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/ports"
)

// upgradeCheck runs AICR upgrade-check from the active plan's recipe to the
// new recipe and keeps its JSON report (role assessment) for the rollout's
// approval (RES-1). It returns the kept report's name, or "" when there is no
// active plan or the active plan has no recipe (a rebuilt plan). Verdicts do
// not stop the resolution: --fail-on-error=false, the rollout judges them.
func (r *Resolver) upgradeCheck(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, recipe []byte) (string, *resOutcome) {
	active := cr.Status.ActivePlanDigest
	if active == "" {
		return "", nil
	}
	from, err := r.planRecipe(ctx, active)
	if err != nil {
		return "", resTransient(err)
	}
	if from == nil {
		return "", nil
	}
	name := resJobName("upgrade-check", string(cr.UID), active, string(recipe))
	_, out := r.fileStage(ctx, cr, resStage{
		kind: ports.JobUpgradeCheck, name: name, keepRole: aicrv1alpha1.RoleAssessment,
		inputs: map[string][]byte{resInputFrom: from, resInputRecipe: recipe},
		args: []string{"--log-json", "upgrade-check", "--from", resInputsDir + resInputFrom, "--to", resInputsDir + resInputRecipe,
			"--deployer", "argocd-helm", "--format", "json", "--fail-on-error=false", "-o", r.Jobs.OutputRef(name)},
	})
	if out != nil {
		return "", out
	}
	return name, nil
}

// planRecipe returns the resolved recipe of the plan with digest, or nil when
// the plan or its recipe ConfigMap does not exist.
func (r *Resolver) planRecipe(ctx context.Context, digest string) ([]byte, error) {
	plan := &corev1.ConfigMap{}
	key := client.ObjectKey{Namespace: r.Config.OperatorNamespace, Name: PlanConfigMapName(aicrv1alpha1.RolePlan, digest)}
	if err := r.Reader.Get(ctx, key, plan); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("get active plan: %w", err)
	}
	var refs StoredPlan
	if err := json.Unmarshal([]byte(plan.Data[PlanKey]), &refs); err != nil || refs.ConfigMapRef == "" {
		return nil, nil // an unreadable or recipe-less active plan has nothing to compare
	}
	cm := &corev1.ConfigMap{}
	key.Name = refs.ConfigMapRef
	if err := r.Reader.Get(ctx, key, cm); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("get active recipe: %w", err)
	}
	if cm.Data[RecipeKey] == "" {
		return nil, nil
	}
	return []byte(cm.Data[RecipeKey]), nil
}
