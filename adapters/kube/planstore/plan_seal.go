package planstore

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// planSealed is what the seal of a plan ConfigMap covers: what it claims in its labels (role,
// runtime UID, schema version, the bundle Job it was resolved by) and annotations (plan digest,
// runtime UID) and the content digest of its plan document. The document records the values of
// its releases (each valuesDigest and the desiredStateDigest over them) and each recipe by its
// content digest, and the reader checks the values and recipe ConfigMaps against it, so those
// carry no seal of their own: sealing the plan seals what it references.
func planSealed(cm *corev1.ConfigMap) []byte {
	raw, _ := json.Marshal([]string{ // a list of strings always encodes
		cm.Labels[aicrv1alpha1.LabelRole], cm.Labels[aicrv1alpha1.LabelRuntimeUID],
		cm.Labels[aicrv1alpha1.LabelSchemaVersion], cm.Labels[aicrv1alpha1.LabelResolvedBy],
		cm.Annotations[aicrv1alpha1.AnnotationPlanDigest], cm.Annotations[aicrv1alpha1.AnnotationRuntimeUID],
		configdoc.ContentDigest([]byte(cm.Data[configdoc.PlanKey])),
	})
	return raw
}

func planSubject(cm *corev1.ConfigMap) ports.SealSubject {
	return ports.SealSubject{Kind: "ConfigMap", Namespace: cm.Namespace, Name: cm.Name, UID: string(cm.UID)}
}

// SealPlan records on the created plan ConfigMap cm (it has its UID) the operator's seal over
// what it claims and holds (planSealed); the caller writes cm.
func SealPlan(s ports.Sealer, cm *corev1.ConfigMap) {
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[aicrv1alpha1.AnnotationSeal] = s.Seal(planSubject(cm), planSealed(cm))
}

// VerifyPlan returns nil when the operator may read the plan ConfigMap cm: its seal verifies, or
// it was created before the seal key was made (domain.TrustPlanRecord); otherwise an error
// wrapping ports.ErrBadSeal.
func VerifyPlan(s ports.Sealer, cm *corev1.ConfigMap) error {
	return domain.TrustPlanRecord(s, planSubject(cm), planSealed(cm), cm.Annotations[aicrv1alpha1.AnnotationSeal],
		cm.CreationTimestamp.Time)
}

// SealedPlan reports whether the plan ConfigMap cm carries the operator's seal under its current
// key. The resolver takes a plan as the result of a bundle Job only then: the resolved-by label
// of a plan from before the key is not covered by any seal.
func SealedPlan(s ports.Sealer, cm *corev1.ConfigMap) bool {
	return s.Verify(planSubject(cm), planSealed(cm), cm.Annotations[aicrv1alpha1.AnnotationSeal]) == nil
}

// sealPlanInPlace seals the plan ConfigMap old as it is once set has changed it, in one patch
// on the version read.
func (pw *Writer) sealPlanInPlace(ctx context.Context, old *corev1.ConfigMap, set func(*corev1.ConfigMap)) error {
	patch := client.MergeFromWithOptions(old.DeepCopy(), client.MergeFromWithOptimisticLock{})
	if old.Labels == nil {
		old.Labels = map[string]string{}
	}
	if old.Annotations == nil {
		old.Annotations = map[string]string{}
	}
	set(old)
	SealPlan(pw.Sealer, old)
	if err := pw.Client.Patch(ctx, old, patch); err != nil {
		return fmt.Errorf("seal plan %s: %w", old.Name, err)
	}
	return nil
}

// claimsOf sets on a plan ConfigMap that holds exactly the plan document of ours the labels and
// annotations of ours: the claims of the plan this write vouches for.
func claimsOf(ours *corev1.ConfigMap) func(*corev1.ConfigMap) {
	return func(cm *corev1.ConfigMap) {
		delete(cm.Labels, aicrv1alpha1.LabelResolvedBy)
		maps.Copy(cm.Labels, ours.Labels)
		maps.Copy(cm.Annotations, ours.Annotations)
	}
}

// resolvedBy sets the bundle Job a plan ConfigMap was resolved by.
func resolvedBy(job string) func(*corev1.ConfigMap) {
	return func(cm *corev1.ConfigMap) { cm.Labels[aicrv1alpha1.LabelResolvedBy] = job }
}

// samePlanDocument reports whether old holds exactly the data of ours, and nothing else.
func samePlanDocument(old, ours *corev1.ConfigMap) bool {
	return maps.Equal(old.Data, ours.Data) && len(old.BinaryData) == 0
}
