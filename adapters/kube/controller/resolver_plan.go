package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/adapters/kube/configdoc"
	"github.com/nvidia/aicr-operator/domain"
)

// Resolver names.
const (
	// RecipePrefix starts the name of a recipe ConfigMap:
	// aicr-recipe-<16 hex of the recipe document's content digest>.
	RecipePrefix = "aicr-recipe-"
)

// planWriter writes plan documents with their recipe, values and assessment ConfigMaps in
// the operator namespace, each create-once (PLAN-5). The resolver writes the plans it
// resolves, the runtime controller the plans it rebuilds (PLAN-7).
type planWriter struct {
	client   client.Client
	reader   client.Reader
	recorder record.EventRecorder
	// namespace is the operator namespace the ConfigMaps go to.
	namespace string
	// image is the AICR image a resolved plan records ("" for a rebuilt plan).
	image string
}

// writer is the resolver's writer of the plans it resolves.
func (r *Resolver) writer() *planWriter {
	return &planWriter{client: r.Client, reader: r.Reader, recorder: r.Recorder,
		namespace: r.Config.OperatorNamespace, image: r.Config.Image}
}

type resPlanWrite struct {
	plan             *domain.Plan
	recipe           []byte
	validationRecipe []byte
	bundleJob        string
	renderFlags      []string
	// bundleRef is the rendered bundle in the runtime registry (empty: none).
	bundleRef string
	// report is the upgrade-check report against fromPlan (nil: none).
	report   []byte
	fromPlan string
}

// writePlan writes the recipe ConfigMaps (content-addressed), the values
// ConfigMap (content-addressed, one per plan: domain.MaxPlanBytes already bounds
// the plan with its values, so values that do not fit one ConfigMap are refused,
// never split), the assessment and then the plan ConfigMap (configdoc layout),
// each create-once (PLAN-5). Sizes are checked before anything is written
// (PLAN-3). The writes hold planStore, so a retention pass never deletes a
// shared recipe or values ConfigMap this plan is about to reference. A plan
// rebuilt from the engine objects (PLAN-7) is written the same way, without
// recipes, bundle Job, render flags or bundle reference.
func (pw *planWriter) writePlan(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, w resPlanWrite) *resOutcome {
	d := w.plan.Digest
	var objs []*corev1.ConfigMap
	doc := &configdoc.Plan{Plan: *w.plan, AICRImage: pw.image, RenderFlags: append([]string{}, w.renderFlags...), BundleRef: w.bundleRef}
	if w.plan.Source == domain.SourceRebuilt {
		doc.RenderFlags = nil // a rebuilt plan does not record how it was rendered (PLAN-7)
	}
	for _, rc := range []struct {
		raw []byte
		ref **configdoc.ConfigMapRef
	}{{w.recipe, &doc.ConfigMapRef}, {w.validationRecipe, &doc.ValidationConfigMapRef}} {
		if len(rc.raw) == 0 {
			continue
		}
		cm, ref, err := pw.recipeObject(cr, d, rc.raw)
		if err != nil {
			return resStalled(&domain.Stall{Reason: domain.StallAICRArtifactUnsupported, Message: err.Error()})
		}
		*rc.ref = ref
		objs = append(objs, cm)
	}
	values, refs, err := configdoc.EncodeValues(w.plan)
	if err != nil {
		return resStalled(&domain.Stall{Reason: domain.StallAICRArtifactUnsupported, Message: err.Error()})
	}
	doc.ValuesRefs = refs
	objs = append(objs, pw.planObject(cr, aicrv1alpha1.RoleValues, values.Name, d, values.Data))
	if w.report != nil {
		name, _ := configdoc.AssessmentConfigMapName(w.fromPlan, d, configdoc.ContentDigest(w.report))
		cm := pw.planObject(cr, aicrv1alpha1.RoleAssessment, name, d, map[string]string{configdoc.ReportKey: string(w.report)})
		cm.Annotations[aicrv1alpha1.AnnotationFromPlanDigest] = w.fromPlan
		objs = append(objs, cm)
	}
	payload, err := configdoc.EncodePlan(doc)
	if err != nil {
		return resTransient(err)
	}
	name, err := configdoc.PlanConfigMapName(d)
	if err != nil {
		return resTransient(err)
	}
	planCM := pw.planObject(cr, aicrv1alpha1.RolePlan, name, d, map[string]string{configdoc.PlanKey: string(payload)})
	planCM.Labels[aicrv1alpha1.LabelSchemaVersion] = fmt.Sprint(domain.PlanSchemaVersion)
	if w.bundleJob != "" {
		planCM.Labels[aicrv1alpha1.LabelResolvedBy] = w.bundleJob
	}
	for _, cm := range append(objs, planCM) {
		if n := resSize(cm); n > domain.MaxPlanBytes {
			return resStalled(&domain.Stall{Reason: domain.StallContentTooLarge, Message: fmt.Sprintf(
				"%s ConfigMap of plan %s has %d bytes, a ConfigMap holds at most %d", cm.Labels[aicrv1alpha1.LabelRole], d, n, domain.MaxPlanBytes)})
		}
	}
	planStore.Lock()
	defer planStore.Unlock()
	for _, cm := range objs {
		if out := pw.createOnce(ctx, cm); out != nil {
			return out
		}
	}
	return pw.createPlan(ctx, cr, planCM, w)
}

// recipeObject stores a recipe as JSON under configdoc.RecipeKey in a
// ConfigMap named after its content digest, so equal recipes share one.
func (pw *planWriter) recipeObject(cr *aicrv1alpha1.ClusterRuntime, digest string, raw []byte) (*corev1.ConfigMap, *configdoc.ConfigMapRef, error) {
	doc, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("recipe: %w", err)
	}
	ref := &configdoc.ConfigMapRef{Digest: configdoc.ContentDigest(doc)}
	ref.Name = RecipePrefix + ref.Digest[len("sha256:"):len("sha256:")+16]
	return pw.planObject(cr, aicrv1alpha1.RoleRecipe, ref.Name, digest, map[string]string{configdoc.RecipeKey: string(doc)}), ref, nil
}

func (pw *planWriter) planObject(cr *aicrv1alpha1.ClusterRuntime, role, name, digest string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: pw.namespace,
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

// replace deletes old (only that exact object) and creates cm.
func (pw *planWriter) replace(ctx context.Context, old, cm *corev1.ConfigMap) error {
	err := pw.client.Delete(ctx, old, client.Preconditions{UID: &old.UID, ResourceVersion: &old.ResourceVersion})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete %s: %w", old.Name, err)
	}
	if err = pw.client.Create(ctx, cm.DeepCopy()); err != nil {
		return fmt.Errorf("create %s: %w", cm.Name, err)
	}
	return nil
}
