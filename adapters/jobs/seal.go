package jobs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/kube/wellknown"
	"github.com/NVIDIA/aicr/ports"
)

// errUnsealed reports a ConfigMap the operator cannot prove it wrote: it lacks the operator's
// labels for the role and runtime, is mutable, its content does not match the content digest
// recorded on it, or it carries no seal of the operator's key over them.
var errUnsealed = errors.New("not written by the operator or changed since")

// dataDigest returns the content digest of a ConfigMap's data and binaryData: "sha256:" + hex
// SHA-256 of their JSON encoding (keys sorted), so it is the same in every process.
func dataDigest(data map[string]string, binary map[string][]byte) string {
	raw, err := json.Marshal(struct {
		Data   map[string]string `json:"data,omitempty"`
		Binary map[string][]byte `json:"binaryData,omitempty"`
	}{data, binary})
	if err != nil { // maps of strings and bytes always encode
		panic(err)
	}
	sum := sha256.Sum256(raw)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// prepare records cm's content digest on it (annotation operator.aicr.run/content-digest) and
// makes it immutable, before it is created; sealKept seals it once the API server gave it a UID.
func prepare(cm *corev1.ConfigMap) {
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[wellknown.AnnotationContentDigest] = dataDigest(cm.Data, cm.BinaryData)
	immutable := true
	cm.Immutable = &immutable
}

// sealedContent is what the seal of a kept result covers: its role, its runtime and its
// content digest.
func sealedContent(role, runtimeUID, digest string) []byte {
	return []byte(role + "\n" + runtimeUID + "\n" + digest)
}

func sealSubject(cm *corev1.ConfigMap) ports.SealSubject {
	return ports.SealSubject{Kind: "ConfigMap", Namespace: cm.Namespace, Name: cm.Name, UID: string(cm.UID)}
}

// sealKept records the operator's keyed seal on the created kept result cm (annotation
// operator.aicr.run/seal), bound to its UID, on the version just created: a ConfigMap put in
// its place meanwhile is not sealed. A crash before the seal leaves a copy Kept does not trust;
// the next Keep replaces it.
func (r *Runner) sealKept(ctx context.Context, cm *corev1.ConfigMap, role, runtimeUID string) error {
	patch := client.MergeFromWithOptions(cm.DeepCopy(), client.MergeFromWithOptimisticLock{})
	cm.Annotations[wellknown.AnnotationSeal] = r.cfg.Sealer.Seal(sealSubject(cm),
		sealedContent(role, runtimeUID, cm.Annotations[wellknown.AnnotationContentDigest]))
	if err := r.client.Patch(ctx, cm, patch); err != nil {
		return fmt.Errorf("seal kept result %s: %w", cm.Name, err)
	}
	return nil
}

// verifyShape returns nil when cm has the shape of an operator-written ConfigMap of role for the
// runtime runtimeUID: its labels, immutable, its data matching the content digest recorded on
// it; otherwise an error wrapping errUnsealed that says what does not hold. It proves nothing
// about who wrote it (verifySealed does).
func verifyShape(cm *corev1.ConfigMap, role, runtimeUID string) error {
	l := cm.Labels
	switch {
	case l[wellknown.LabelManagedBy] != wellknown.ManagedByValue || l[wellknown.LabelRole] != role:
		return fmt.Errorf("ConfigMap %s/%s has no operator %s labels: %w", cm.Namespace, cm.Name, role, errUnsealed)
	case l[wellknown.LabelRuntimeUID] != runtimeUID || cm.Annotations[wellknown.AnnotationRuntimeUID] != runtimeUID:
		return fmt.Errorf("ConfigMap %s/%s belongs to runtime %q, not %q: %w", cm.Namespace, cm.Name,
			l[wellknown.LabelRuntimeUID], runtimeUID, errUnsealed)
	case cm.Immutable == nil || !*cm.Immutable:
		return fmt.Errorf("ConfigMap %s/%s is not immutable: %w", cm.Namespace, cm.Name, errUnsealed)
	}
	want := cm.Annotations[wellknown.AnnotationContentDigest]
	if got := dataDigest(cm.Data, cm.BinaryData); want == "" || got != want {
		return fmt.Errorf("ConfigMap %s/%s holds content %s, its recorded digest is %q: %w", cm.Namespace, cm.Name,
			got, want, errUnsealed)
	}
	return nil
}

// verifySealed is verifyShape, and the seal over cm's role, runtime and content verifies with
// the operator's key.
func (r *Runner) verifySealed(cm *corev1.ConfigMap, role, runtimeUID string) error {
	if err := verifyShape(cm, role, runtimeUID); err != nil {
		return err
	}
	want := cm.Annotations[wellknown.AnnotationContentDigest]
	if err := r.cfg.Sealer.Verify(sealSubject(cm), sealedContent(role, runtimeUID, want), cm.Annotations[wellknown.AnnotationSeal]); err != nil {
		return fmt.Errorf("%w: %w", errUnsealed, err)
	}
	return nil
}
