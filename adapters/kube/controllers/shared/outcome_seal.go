package shared

import (
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// outcomeSubject is the object a rollout's outcome seal is bound to: the rollout, by UID.
func outcomeSubject(ro *aicrv1alpha1.RuntimeRollout) ports.SealSubject {
	return ports.SealSubject{Kind: "RuntimeRollout", Name: ro.Name, UID: string(ro.UID)}
}

// sealedOutcome is what the seal of ro covers: its outcome label and message (domain.SealedOutcome).
func sealedOutcome(ro *aicrv1alpha1.RuntimeRollout) []byte {
	return domain.SealedOutcome(domain.Phase(ro.Labels[aicrv1alpha1.LabelOutcome]), ro.Annotations[aicrv1alpha1.AnnotationOutcomeMessage])
}

// SealOutcome records on ro (annotation operator.aicr.run/seal) the operator's seal of its
// outcome label and message, as they are on ro; the caller writes ro.
func SealOutcome(s ports.Sealer, ro *aicrv1alpha1.RuntimeRollout) {
	if ro.Annotations == nil {
		ro.Annotations = map[string]string{}
	}
	ro.Annotations[aicrv1alpha1.AnnotationSeal] = s.Seal(outcomeSubject(ro), sealedOutcome(ro))
}

// VerifyOutcome returns nil when ro's outcome label and message carry the operator's seal for
// this rollout; otherwise an error wrapping ports.ErrBadSeal.
func VerifyOutcome(s ports.Sealer, ro *aicrv1alpha1.RuntimeRollout) error {
	return s.Verify(outcomeSubject(ro), sealedOutcome(ro), ro.Annotations[aicrv1alpha1.AnnotationSeal])
}

// SealedSuccess reports whether ro is labelled Succeeded under the operator's seal over its
// outcome and message (domain.SealedSuccess).
func SealedSuccess(s ports.Sealer, ro *aicrv1alpha1.RuntimeRollout) bool {
	return domain.SealedSuccess(s, outcomeSubject(ro), domain.Phase(ro.Labels[aicrv1alpha1.LabelOutcome]),
		ro.Annotations[aicrv1alpha1.AnnotationOutcomeMessage], ro.Annotations[aicrv1alpha1.AnnotationSeal])
}

// SealEvidence records on ro (annotation operator.aicr.run/evidence-seal) the operator's seal of
// its evidence annotation as it is on ro; the caller writes ro with it.
func SealEvidence(s ports.Sealer, ro *aicrv1alpha1.RuntimeRollout) {
	ro.Annotations[aicrv1alpha1.AnnotationEvidenceSeal] = s.Seal(outcomeSubject(ro),
		domain.SealedEvidence(ports.Digest(ro.Annotations[aicrv1alpha1.AnnotationEvidence])))
}

// Evidence returns the deployment-validation evidence digest ro records, only under the
// operator's seal (domain.TrustedEvidence): "" without evidence, an error wrapping
// ports.ErrBadSeal for a reference the operator did not seal on this rollout.
func Evidence(s ports.Sealer, ro *aicrv1alpha1.RuntimeRollout) (ports.Digest, error) {
	return domain.TrustedEvidence(s, outcomeSubject(ro), ro.Annotations[aicrv1alpha1.AnnotationEvidence],
		ro.Annotations[aicrv1alpha1.AnnotationEvidenceSeal])
}
