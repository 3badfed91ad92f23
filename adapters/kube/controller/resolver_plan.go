package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/domain"
)

// Plan ConfigMap layout (PLAN-1..3).
const (
	// PlanKey is the data key of the plan document (plain JSON, PLAN-2).
	PlanKey = "plan.json"
	// RecipeKey holds the recipe as AICR resolved it (configMapRef).
	RecipeKey = "recipe.yaml"
	// ValidationRecipeKey holds the recipe as the bundle records it (validationConfigMapRef).
	ValidationRecipeKey = "validation-recipe.yaml"
	// LabelResolvedBy names the bundle Job whose output a plan records, so a
	// later reconcile finds the result after the Job is deleted.
	LabelResolvedBy = aicrv1alpha1.Prefix + "resolved-by"
)

// StoredPlan is the plan document the resolver writes under PlanKey: the
// domain plan plus the references that are not part of its digest.
type StoredPlan struct {
	*domain.Plan
	// ConfigMapRef names the recipe ConfigMap (key RecipeKey).
	ConfigMapRef string `json:"configMapRef,omitempty"`
	// ValidationConfigMapRef names the same ConfigMap (key ValidationRecipeKey).
	ValidationConfigMapRef string `json:"validationConfigMapRef,omitempty"`
	// ValuesConfigMapRef names the values ConfigMap (one <release>.json per release).
	ValuesConfigMapRef string `json:"valuesConfigMapRef,omitempty"`
	// AICRImage is the pinned image that rendered the plan.
	AICRImage string `json:"aicrImage,omitempty"`
	// RenderFlags are the aicr bundle flags of the resolution.
	RenderFlags []string `json:"renderFlags,omitempty"`
	// AssessmentConfigMapRef names the kept upgrade-check report against the active plan, if any.
	AssessmentConfigMapRef string `json:"assessmentConfigMapRef,omitempty"`
}

// PlanConfigMapName returns aicr-<kind>-<first 16 hex of the digest> (PLAN-1).
func PlanConfigMapName(kind, digest string) string {
	hex := strings.TrimPrefix(digest, "sha256:")
	if len(hex) > 16 {
		hex = hex[:16]
	}
	return "aicr-" + kind + "-" + hex
}

type resPlanWrite struct {
	plan             *domain.Plan
	recipe           []byte
	validationRecipe []byte
	bundleJob        string
	renderFlags      []string
	assessment       string
}

// writePlan writes the recipe, values and plan ConfigMaps, create-once
// (PLAN-5). Sizes are checked before anything is written (PLAN-3).
func (r *Resolver) writePlan(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, w resPlanWrite) *resOutcome {
	d := w.plan.Digest
	recipeCM := r.planObject(cr, aicrv1alpha1.RoleRecipe, d, map[string]string{
		RecipeKey: string(w.recipe), ValidationRecipeKey: string(w.validationRecipe)})
	values := map[string]string{}
	for _, rel := range w.plan.Releases {
		b, err := domain.CanonicalJSON(rel.Values)
		if err != nil {
			return resStalled(&domain.Stall{Reason: domain.StallContentTooLarge, Message: err.Error()})
		}
		values[rel.ID+".json"] = string(b)
	}
	valuesCM := r.planObject(cr, aicrv1alpha1.RoleValues, d, values)
	payload, err := json.Marshal(StoredPlan{
		Plan: w.plan, ConfigMapRef: recipeCM.Name, ValidationConfigMapRef: recipeCM.Name,
		ValuesConfigMapRef: valuesCM.Name, AICRImage: r.Config.Image, RenderFlags: w.renderFlags,
		AssessmentConfigMapRef: w.assessment,
	})
	if err != nil {
		return resTransient(fmt.Errorf("encode plan: %w", err))
	}
	planCM := r.planObject(cr, aicrv1alpha1.RolePlan, d, map[string]string{PlanKey: string(payload)})
	planCM.Labels[aicrv1alpha1.LabelSchemaVersion] = fmt.Sprint(domain.PlanSchemaVersion)
	planCM.Labels[LabelResolvedBy] = w.bundleJob
	for _, cm := range []*corev1.ConfigMap{recipeCM, valuesCM, planCM} {
		if n := resSize(cm); n > domain.MaxPlanBytes {
			return resStalled(&domain.Stall{Reason: domain.StallContentTooLarge, Message: fmt.Sprintf(
				"%s ConfigMap of plan %s has %d bytes, a ConfigMap holds at most %d", cm.Labels[aicrv1alpha1.LabelRole], d, n, domain.MaxPlanBytes)})
		}
	}
	for _, cm := range []*corev1.ConfigMap{recipeCM, valuesCM} {
		if err = r.createOnce(ctx, cm); err != nil {
			return resTransient(err)
		}
	}
	return r.createPlan(ctx, cr, planCM, w)
}

func (r *Resolver) planObject(cr *aicrv1alpha1.ClusterRuntime, role, digest string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name: PlanConfigMapName(role, digest), Namespace: r.Config.OperatorNamespace,
			Labels: map[string]string{
				aicrv1alpha1.LabelRole: role, aicrv1alpha1.LabelRuntimeUID: string(cr.UID),
				aicrv1alpha1.LabelManagedBy: aicrv1alpha1.ManagedByValue,
			},
			Annotations: map[string]string{
				aicrv1alpha1.AnnotationPlanDigest: digest, aicrv1alpha1.AnnotationRuntimeUID: string(cr.UID),
			},
		},
		Immutable: ptr.To(true), Data: data,
	}
}

func resSize(cm *corev1.ConfigMap) int {
	n := 0
	for k, v := range cm.Data {
		n += len(k) + len(v)
	}
	return n
}

// createOnce creates a recipe or values ConfigMap; an existing one of this
// runtime is kept, one left by another runtime is replaced.
func (r *Resolver) createOnce(ctx context.Context, cm *corev1.ConfigMap) error {
	err := r.Client.Create(ctx, cm.DeepCopy())
	if !apierrors.IsAlreadyExists(err) {
		return client.IgnoreAlreadyExists(err)
	}
	old := &corev1.ConfigMap{}
	if err = r.Reader.Get(ctx, client.ObjectKeyFromObject(cm), old); err != nil {
		return fmt.Errorf("get %s: %w", cm.Name, err)
	}
	if old.Annotations[aicrv1alpha1.AnnotationRuntimeUID] == cm.Annotations[aicrv1alpha1.AnnotationRuntimeUID] {
		return nil
	}
	return r.replace(ctx, old, cm)
}

// replace deletes old (only that exact object) and creates cm.
func (r *Resolver) replace(ctx context.Context, old, cm *corev1.ConfigMap) error {
	err := r.Client.Delete(ctx, old, client.Preconditions{UID: &old.UID, ResourceVersion: &old.ResourceVersion})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete %s: %w", old.Name, err)
	}
	if err = r.Client.Create(ctx, cm.DeepCopy()); err != nil {
		return fmt.Errorf("create %s: %w", cm.Name, err)
	}
	return nil
}
