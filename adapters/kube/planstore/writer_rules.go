package planstore

import (
	"context"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/planstore/plantrust"
	"github.com/NVIDIA/aicr/domain"
)

// createPlan creates the plan ConfigMap once (PLAN-5) and seals it (bound to its UID, on the
// version just created): AlreadyExists with the same digest is success, another digest a
// Conflict, an Unreadable plan (PLAN-6) PlanUnreadable; a plan of another runtime UID is
// replaced, and a rebuilt plan is replaced by a resolved one, never the reverse. A plan at the
// name the operator may not read (VerifyPlan: not sealed by its key and created after it, as
// another identity writes one while the plans policy's binding is missing) is not the
// operator's: it is sealed where it is when it holds exactly this plan document (the
// operator's own create whose answer was lost, or whose seal it did not get to write), and
// replaced otherwise. A readable plan from before the key that holds this document is sealed
// where it is, so it is resolved once more at most.
func (pw *Writer) createPlan(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, cm *corev1.ConfigMap, w Write) (*domain.Stall, error) {
	created := cm.DeepCopy()
	err := pw.Client.Create(ctx, created)
	if err == nil {
		if err = pw.sealPlanInPlace(ctx, created, claimsOf(cm)); err != nil {
			return nil, err
		}
		pw.Recorder.Eventf(cr, corev1.EventTypeNormal, domain.EventPlanWritten.String(), "plan %s written to ConfigMap %s", w.Plan.Digest, cm.Name)
		return nil, nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("create plan %s: %w", cm.Name, err)
	}
	old := &corev1.ConfigMap{}
	if err = pw.Reader.Get(ctx, client.ObjectKeyFromObject(cm), old); err != nil {
		return nil, fmt.Errorf("get plan %s: %w", cm.Name, err)
	}
	if VerifyPlan(pw.Sealer, old) != nil {
		if samePlanDocument(old, cm) {
			return nil, pw.sealPlanInPlace(ctx, old, claimsOf(cm))
		}
		return nil, pw.replacePlan(ctx, cr, old, cm, w)
	}
	stored := plantrust.Stored(old)
	decision, stall := domain.DecidePlanWrite(stored, w.Plan)
	if stall != nil {
		return stall, nil
	}
	if refusal := plantrust.Check(stored, stored.DigestAnnotation, stored.RuntimeUID); refusal != nil {
		return refusal.Stall, nil
	}
	if decision == domain.PlanWriteReplace {
		return nil, pw.replacePlan(ctx, cr, old, cm, w)
	}
	switch {
	case !SealedPlan(pw.Sealer, old) && samePlanDocument(old, cm):
		return nil, pw.sealPlanInPlace(ctx, old, claimsOf(cm))
	case w.BundleJob != "" && old.Labels[aicrv1alpha1.LabelResolvedBy] != w.BundleJob:
		return nil, pw.sealPlanInPlace(ctx, old, resolvedBy(w.BundleJob))
	}
	return nil, nil
}

// replacePlan replaces the plan ConfigMap old with cm and seals the new one.
func (pw *Writer) replacePlan(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, old, cm *corev1.ConfigMap, w Write) error {
	created := cm.DeepCopy()
	if err := pw.replaceWith(ctx, old, created); err != nil {
		return err
	}
	if err := pw.sealPlanInPlace(ctx, created, claimsOf(cm)); err != nil {
		return err
	}
	pw.Recorder.Eventf(cr, corev1.EventTypeNormal, domain.EventPlanWritten.String(), "plan %s replaced in ConfigMap %s", w.Plan.Digest, cm.Name)
	return nil
}

// createOnce creates a content-addressed ConfigMap (recipe, values,
// assessment). One that already exists with the same data is success (another
// plan wrote it, or an earlier reconcile); other data under its name is a
// Conflict, as PLAN-5 has it for plans.
func (pw *Writer) createOnce(ctx context.Context, cm *corev1.ConfigMap) (*domain.Stall, error) {
	err := pw.Client.Create(ctx, cm)
	if !apierrors.IsAlreadyExists(err) {
		if err != nil {
			return nil, fmt.Errorf("create %s: %w", cm.Name, err)
		}
		return nil, nil
	}
	old := &corev1.ConfigMap{}
	if err = pw.Reader.Get(ctx, client.ObjectKeyFromObject(cm), old); err != nil {
		return nil, fmt.Errorf("get %s: %w", cm.Name, err)
	}
	if !maps.Equal(old.Data, cm.Data) || len(old.BinaryData) > 0 {
		return domain.PlanRecordConflict(fmt.Sprintf(
			"%s ConfigMap %s exists with other content than plan %s records", cm.Labels[aicrv1alpha1.LabelRole], cm.Name,
			cm.Annotations[aicrv1alpha1.AnnotationPlanDigest])), nil
	}
	return nil, nil
}
