package planstore

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// assessmentSealed is what the seal of an assessment ConfigMap covers: the transition it
// assesses (its from and plan digest annotations) and the content digest of its report.
func assessmentSealed(cm *corev1.ConfigMap) []byte {
	return []byte(cm.Annotations[aicrv1alpha1.AnnotationFromPlanDigest] + "\n" +
		cm.Annotations[aicrv1alpha1.AnnotationPlanDigest] + "\n" + configdoc.ContentDigest([]byte(cm.Data[configdoc.ReportKey])))
}

func assessmentSubject(cm *corev1.ConfigMap) ports.SealSubject {
	return ports.SealSubject{Kind: "ConfigMap", Namespace: cm.Namespace, Name: cm.Name, UID: string(cm.UID)}
}

// VerifyAssessment returns nil when the assessment ConfigMap cm carries the operator's seal over
// its transition and report; otherwise an error wrapping ports.ErrBadSeal: the report is not used.
func VerifyAssessment(s ports.Sealer, cm *corev1.ConfigMap) error {
	return s.Verify(assessmentSubject(cm), assessmentSealed(cm), cm.Annotations[aicrv1alpha1.AnnotationSeal])
}

// SealAssessment records on the created assessment ConfigMap cm (it has its UID) the operator's
// seal over its transition and report; the caller writes cm.
func SealAssessment(s ports.Sealer, cm *corev1.ConfigMap) {
	cm.Annotations[aicrv1alpha1.AnnotationSeal] = s.Seal(assessmentSubject(cm), assessmentSealed(cm))
}

// createAssessment creates the assessment ConfigMap cm once and seals it (bound to its UID, on
// the version just created). One already there with the same report is kept when its seal
// verifies; without a valid seal (the operator's own create whose answer was lost, another
// identity writing it while the plans binding was missing, an operator before the seal key) it
// is sealed where it is when it assesses the same transition with the same report (what the
// seal covers, and what this write vouches for), so nothing is written twice, and replaced by
// the operator's own otherwise.
func (pw *Writer) createAssessment(ctx context.Context, cm *corev1.ConfigMap) (*domain.Stall, error) {
	if stall, err := pw.createOnce(ctx, cm); stall != nil || err != nil {
		return stall, err
	}
	if cm.UID == "" { // it was there: createOnce checked the report is the same
		old := &corev1.ConfigMap{}
		if err := pw.Reader.Get(ctx, client.ObjectKeyFromObject(cm), old); err != nil {
			return nil, fmt.Errorf("get %s: %w", cm.Name, err)
		}
		switch {
		case VerifyAssessment(pw.Sealer, old) == nil:
			return nil, nil
		case string(assessmentSealed(old)) == string(assessmentSealed(cm)):
			cm = old
		default:
			if err := pw.replaceWith(ctx, old, cm); err != nil {
				return nil, err
			}
		}
	}
	patch := client.MergeFromWithOptions(cm.DeepCopy(), client.MergeFromWithOptimisticLock{})
	SealAssessment(pw.Sealer, cm)
	if err := pw.Client.Patch(ctx, cm, patch); err != nil {
		return nil, fmt.Errorf("seal %s: %w", cm.Name, err)
	}
	return nil, nil
}
