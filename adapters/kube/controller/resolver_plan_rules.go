package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
	"github.com/nvidia/aicr-operator/adapters/kube/configdoc"
	"github.com/nvidia/aicr-operator/domain"
)

// createPlan creates the plan ConfigMap once (PLAN-5): AlreadyExists with the
// same digest is success, another digest a Conflict, an unreadable plan
// (PLAN-6) PlanUnreadable; a plan of another runtime UID is replaced, and a
// rebuilt plan is replaced by a resolved one, never the reverse.
func (pw *planWriter) createPlan(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, cm *corev1.ConfigMap, w resPlanWrite) *resOutcome {
	err := pw.client.Create(ctx, cm.DeepCopy())
	if err == nil {
		pw.recorder.Eventf(cr, corev1.EventTypeNormal, EventPlanWritten, "plan %s written to ConfigMap %s", w.plan.Digest, cm.Name)
		return nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return resTransient(fmt.Errorf("create plan %s: %w", cm.Name, err))
	}
	old := &corev1.ConfigMap{}
	if err = pw.reader.Get(ctx, client.ObjectKeyFromObject(cm), old); err != nil {
		return resTransient(fmt.Errorf("get plan %s: %w", cm.Name, err))
	}
	stored := ReadStoredPlan(old)
	decision, stall := domain.DecidePlanWrite(stored, w.plan)
	if stall != nil {
		return resStalled(stall)
	}
	if s := domain.CheckPlanReadable(stored, stored.RuntimeUID); s != nil {
		return resStalled(s)
	}
	if decision == domain.PlanWriteReplace {
		if err = pw.replace(ctx, old, cm); err != nil {
			return resTransient(err)
		}
		pw.recorder.Eventf(cr, corev1.EventTypeNormal, EventPlanWritten, "plan %s replaced in ConfigMap %s", w.plan.Digest, cm.Name)
		return nil
	}
	if w.bundleJob != "" && old.Labels[aicrv1alpha1.LabelResolvedBy] != w.bundleJob {
		patch := client.MergeFrom(old.DeepCopy())
		if old.Labels == nil {
			old.Labels = map[string]string{}
		}
		old.Labels[aicrv1alpha1.LabelResolvedBy] = w.bundleJob
		if err = pw.client.Patch(ctx, old, patch); err != nil {
			return resTransient(fmt.Errorf("label plan %s: %w", cm.Name, err))
		}
	}
	return nil
}

// createOnce creates a content-addressed ConfigMap (recipe, values,
// assessment). One that already exists with the same data is success (another
// plan wrote it, or an earlier reconcile); other data under its name is a
// Conflict, as PLAN-5 has it for plans.
func (pw *planWriter) createOnce(ctx context.Context, cm *corev1.ConfigMap) *resOutcome {
	err := pw.client.Create(ctx, cm)
	if !apierrors.IsAlreadyExists(err) {
		if err != nil {
			return resTransient(fmt.Errorf("create %s: %w", cm.Name, err))
		}
		return nil
	}
	old := &corev1.ConfigMap{}
	if err = pw.reader.Get(ctx, client.ObjectKeyFromObject(cm), old); err != nil {
		return resTransient(fmt.Errorf("get %s: %w", cm.Name, err))
	}
	if !maps.Equal(old.Data, cm.Data) || len(old.BinaryData) > 0 {
		return resStalled(&domain.Stall{Reason: domain.StallConflict, Message: fmt.Sprintf(
			"%s ConfigMap %s exists with other content than plan %s records", cm.Labels[aicrv1alpha1.LabelRole], cm.Name,
			cm.Annotations[aicrv1alpha1.AnnotationPlanDigest])})
	}
	return nil
}

// ReadStoredPlan reads what PLAN-5 and PLAN-6 judge of a plan ConfigMap: its
// labels, annotation and payload header. An unparsable payload yields a zero
// payload schema, which CheckPlanReadable refuses.
func ReadStoredPlan(cm *corev1.ConfigMap) domain.StoredPlan {
	var payload struct {
		SchemaVersion int               `json:"schemaVersion"`
		Digest        string            `json:"desiredStateDigest"`
		RuntimeUID    string            `json:"runtimeUID"`
		Source        domain.PlanSource `json:"source"`
	}
	_ = json.Unmarshal([]byte(cm.Data[configdoc.PlanKey]), &payload)
	return domain.StoredPlan{
		DigestAnnotation: cm.Annotations[aicrv1alpha1.AnnotationPlanDigest],
		SchemaLabel:      cm.Labels[aicrv1alpha1.LabelSchemaVersion],
		PayloadSchema:    payload.SchemaVersion, PayloadDigest: payload.Digest,
		RuntimeUID: payload.RuntimeUID, Source: payload.Source,
	}
}

// recordedPlan returns the digest of this runtime's plan recorded for the
// bundle Job name, or "" when there is none yet.
func (r *Resolver) recordedPlan(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, bundleJob string) (string, error) {
	list := &corev1.ConfigMapList{}
	err := r.Reader.List(ctx, list, client.InNamespace(r.Config.OperatorNamespace), client.MatchingLabels{
		aicrv1alpha1.LabelRole: aicrv1alpha1.RolePlan, aicrv1alpha1.LabelRuntimeUID: string(cr.UID), aicrv1alpha1.LabelResolvedBy: bundleJob,
	})
	if err != nil {
		return "", fmt.Errorf("list plans: %w", err)
	}
	for i := range list.Items {
		stored := ReadStoredPlan(&list.Items[i])
		if domain.CheckPlanReadable(stored, string(cr.UID)) == nil && stored.Source == domain.SourceResolved {
			return stored.DigestAnnotation, nil
		}
	}
	return "", nil
}
