package planstore

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// RecipePrefix starts the name of a recipe ConfigMap:
// aicr-recipe-<16 hex of the recipe document's content digest>.
const RecipePrefix = "aicr-recipe-"

// Writes serializes, within the operator process, writing a plan with its recipe and
// values ConfigMaps (Writer) and a retention pass deleting what no plan references, so a
// pass never deletes a shared recipe or values ConfigMap a plan is about to reference.
var Writes sync.Mutex

// Writer writes plan documents with their recipe, values and assessment ConfigMaps in
// the operator namespace, each create-once (PLAN-5). The resolver writes the plans it
// resolves, the runtime controller the plans it rebuilds (PLAN-7).
type Writer struct {
	Client   client.Client
	Reader   client.Reader
	Recorder record.EventRecorder
	// Namespace is the operator namespace the ConfigMaps go to.
	Namespace string
	// Image is the AICR image a resolved plan records ("" for a rebuilt plan).
	Image string
	// Sealer seals the plan and assessment ConfigMaps (required).
	Sealer ports.Sealer
}

// Write is one plan to write with what it references.
type Write struct {
	Plan             *domain.Plan
	Recipe           []byte
	ValidationRecipe []byte
	// BundleJob is the bundle Job whose output the plan records (resolved-by label; "" rebuilt).
	BundleJob   string
	RenderFlags []string
	// BundleRef is the rendered bundle in the runtime registry (empty: none).
	BundleRef string
	// Report is the upgrade-check report against FromPlan (nil: none).
	Report   []byte
	FromPlan string
}

// Write writes the recipe ConfigMaps (content-addressed), the values
// ConfigMap (content-addressed, one per plan: domain.MaxPlanBytes already bounds
// the plan with its values, so values that do not fit one ConfigMap are refused,
// never split), the assessment and then the plan ConfigMap (configdoc layout), sealed (SealPlan),
// each create-once (PLAN-5), and returns the stall that stops it or a transient error. Sizes are checked before anything is written
// (PLAN-3). The writes hold Writes, so a retention pass never deletes a
// shared recipe or values ConfigMap this plan is about to reference. A plan
// rebuilt from the engine objects (PLAN-7) is written the same way, without
// recipes, bundle Job, render flags or bundle reference.
func (pw *Writer) Write(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, w Write) (*domain.Stall, error) {
	d := w.Plan.Digest
	if pw.Sealer == nil {
		return nil, fmt.Errorf("plan %s: a plan is written only with a Sealer", d)
	}
	var objs []*corev1.ConfigMap
	doc := &configdoc.Plan{Plan: *w.Plan, AICRImage: pw.Image, RenderFlags: append([]string{}, w.RenderFlags...), BundleRef: w.BundleRef}
	if w.Plan.Source == domain.SourceRebuilt {
		doc.RenderFlags = nil // a rebuilt plan does not record how it was rendered (PLAN-7)
	}
	for _, rc := range []struct {
		raw []byte
		ref **configdoc.ConfigMapRef
	}{{w.Recipe, &doc.ConfigMapRef}, {w.ValidationRecipe, &doc.ValidationConfigMapRef}} {
		if len(rc.raw) == 0 {
			continue
		}
		cm, ref, err := pw.recipeObject(cr, d, rc.raw)
		if err != nil {
			return domain.ArtifactUnreadable(err.Error()), nil
		}
		*rc.ref = ref
		objs = append(objs, cm)
	}
	values, refs, err := configdoc.EncodeValues(w.Plan)
	if err != nil {
		return domain.ArtifactUnreadable(err.Error()), nil
	}
	doc.ValuesRefs = refs
	objs = append(objs, pw.planObject(cr, aicrv1alpha1.RoleValues, values.Name, d, values.Data))
	var assessment *corev1.ConfigMap
	if w.Report != nil {
		name, _ := configdoc.AssessmentConfigMapName(w.FromPlan, d, configdoc.ContentDigest(w.Report))
		assessment = pw.planObject(cr, aicrv1alpha1.RoleAssessment, name, d, map[string]string{configdoc.ReportKey: string(w.Report)})
		assessment.Annotations[aicrv1alpha1.AnnotationFromPlanDigest] = w.FromPlan
		objs = append(objs, assessment)
	}
	payload, err := configdoc.EncodePlan(doc)
	if err != nil {
		return nil, err
	}
	name, err := configdoc.PlanConfigMapName(d)
	if err != nil {
		return nil, err
	}
	planCM := pw.planObject(cr, aicrv1alpha1.RolePlan, name, d, map[string]string{configdoc.PlanKey: string(payload)})
	planCM.Labels[aicrv1alpha1.LabelSchemaVersion] = fmt.Sprint(domain.PlanSchemaVersion)
	if w.BundleJob != "" {
		planCM.Labels[aicrv1alpha1.LabelResolvedBy] = w.BundleJob
	}
	for _, cm := range append(objs, planCM) {
		if n := configMapSize(cm); n > domain.MaxPlanBytes {
			return domain.PlanPartTooLarge(cm.Labels[aicrv1alpha1.LabelRole], d, n), nil
		}
	}
	Writes.Lock()
	defer Writes.Unlock()
	for _, cm := range objs {
		create := pw.createOnce
		if cm == assessment {
			create = pw.createAssessment
		}
		if stall, err := create(ctx, cm); stall != nil || err != nil {
			return stall, err
		}
	}
	return pw.createPlan(ctx, cr, planCM, w)
}

// recipeObject stores a recipe as JSON under configdoc.RecipeKey in a
// ConfigMap named after its content digest, so equal recipes share one.
func (pw *Writer) recipeObject(cr *aicrv1alpha1.ClusterRuntime, digest string, raw []byte) (*corev1.ConfigMap, *configdoc.ConfigMapRef, error) {
	doc, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("recipe: %w", err)
	}
	ref := &configdoc.ConfigMapRef{Digest: configdoc.ContentDigest(doc)}
	ref.Name = RecipePrefix + ref.Digest[len("sha256:"):len("sha256:")+16]
	return pw.planObject(cr, aicrv1alpha1.RoleRecipe, ref.Name, digest, map[string]string{configdoc.RecipeKey: string(doc)}), ref, nil
}

func (pw *Writer) planObject(cr *aicrv1alpha1.ClusterRuntime, role, name, digest string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: pw.Namespace,
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

func configMapSize(cm *corev1.ConfigMap) int {
	n := 0
	for k, v := range cm.Data {
		n += len(k) + len(v)
	}
	return n
}

// replaceWith deletes old (only that exact object) and creates cm, which then holds what the
// API server created.
func (pw *Writer) replaceWith(ctx context.Context, old, cm *corev1.ConfigMap) error {
	err := pw.Client.Delete(ctx, old, client.Preconditions{UID: &old.UID, ResourceVersion: &old.ResourceVersion})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete %s: %w", old.Name, err)
	}
	if err = pw.Client.Create(ctx, cm); err != nil {
		return fmt.Errorf("create %s: %w", cm.Name, err)
	}
	return nil
}
