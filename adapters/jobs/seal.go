package jobs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/NVIDIA/aicr/adapters/kube/wellknown"
)

// errUnsealed reports a ConfigMap the operator cannot prove it wrote: it lacks the operator's
// labels for the role and runtime, is mutable, or its content does not match the content
// digest recorded on it.
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

// seal records cm's content digest on it (annotation operator.aicr.run/content-digest) and
// makes it immutable. The chart's plans policy lets only the operator write ConfigMaps that
// carry operator.aicr.run/ metadata in its namespace, so a sealed ConfigMap that still
// verifies is the operator's, unchanged.
func seal(cm *corev1.ConfigMap) {
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[wellknown.AnnotationContentDigest] = dataDigest(cm.Data, cm.BinaryData)
	immutable := true
	cm.Immutable = &immutable
}

// verifySealed returns nil when cm is an operator-written ConfigMap of role for the runtime
// runtimeUID, immutable, whose data matches the content digest seal recorded; otherwise an
// error wrapping errUnsealed that says what does not hold.
func verifySealed(cm *corev1.ConfigMap, role, runtimeUID string) error {
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
