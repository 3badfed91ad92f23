package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/adapters/kube/configdoc"
	"github.com/nvidia/aicr-operator/ports"
)

// resCheck is the result of the upgrade-check stage.
type resCheck struct {
	// job is the upgrade-check Job to delete once the plan is recorded ("" = none ran).
	job string
	// report is AICR's JSON report (nil = none).
	report []byte
}

// upgradeCheck runs AICR upgrade-check from the active plan's recipe to the
// new recipe (RES-1). Its report is written with the plan as an assessment
// ConfigMap (configdoc layout, annotated with both plan digests). There is
// nothing to check without an active plan or when the active plan has no
// recipe (a rebuilt plan). Verdicts do not stop the resolution
// (--fail-on-error=false): the rollout judges them.
func (r *Resolver) upgradeCheck(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, recipe []byte) (resCheck, *resOutcome) {
	active := cr.Status.ActivePlanDigest
	if active == "" {
		return resCheck{}, nil
	}
	from, err := r.planRecipe(ctx, active)
	if err != nil {
		return resCheck{}, resTransient(err)
	}
	if from == nil {
		return resCheck{}, nil
	}
	name := resJobName("upgrade-check", string(cr.UID), active, string(recipe))
	report, out := r.fileStage(ctx, cr, resStage{
		kind: ports.JobUpgradeCheck, name: name,
		inputs: map[string][]byte{resInputFrom: from, resInputRecipe: recipe},
		args: []string{"--log-json", "upgrade-check", "--from", resInputsDir + resInputFrom, "--to", resInputsDir + resInputRecipe,
			"--deployer", "argocd-helm", "--format", "json", "--fail-on-error=false", "-o", r.Jobs.OutputRef(name)},
	})
	if out != nil {
		return resCheck{}, out
	}
	return resCheck{job: name, report: report}, nil
}

// planRecipe returns the resolved recipe of the plan with digest, or nil when
// the plan, its configMapRef or the recipe ConfigMap does not exist.
func (r *Resolver) planRecipe(ctx context.Context, digest string) ([]byte, error) {
	name, err := configdoc.PlanConfigMapName(digest)
	if err != nil {
		return nil, nil // a malformed active digest has no recipe to compare
	}
	plan := &corev1.ConfigMap{}
	key := client.ObjectKey{Namespace: r.Config.OperatorNamespace, Name: name}
	if err = r.Reader.Get(ctx, key, plan); err != nil {
		return nil, client.IgnoreNotFound(wrapGet("active plan", err))
	}
	doc, err := configdoc.DecodePlan([]byte(plan.Data[configdoc.PlanKey]))
	if err != nil || doc.ConfigMapRef == nil {
		return nil, nil // an unreadable or recipe-less active plan has nothing to compare
	}
	cm := &corev1.ConfigMap{}
	key.Name = doc.ConfigMapRef.Name
	if err = r.Reader.Get(ctx, key, cm); err != nil {
		return nil, client.IgnoreNotFound(wrapGet("active recipe", err))
	}
	raw := cm.Data[configdoc.RecipeKey]
	if raw == "" {
		return nil, nil
	}
	return []byte(raw), nil
}

func wrapGet(what string, err error) error {
	if apierrors.IsNotFound(err) {
		return err
	}
	return fmt.Errorf("get %s: %w", what, err)
}
