package trust_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/jobs"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
)

// TestAttack_ResealKeptRecipeWhileItsBindingIsGone: an identity that may change policy bindings
// deletes the plans policy's binding (as the restore procedure does), and the ConfigMap editor
// puts a kept recipe with an extra component in place of the operator's: its labels, immutable,
// its content digest recomputed and the seal of the copy it replaced. Once the binding is back,
// the next resolution does not trust it (the seal is keyed and bound to the replaced copy's UID):
// it runs the recipe Job again and keeps its own result in its place.
func TestAttack_ResealKeptRecipeWhileItsBindingIsGone(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	ctx := context.Background()
	kept := keptResult(t, aicrv1alpha1.RoleRecipe)
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "aicr-operator-plans"}}
	require.NoError(t, as(policyUser).Delete(ctx, binding))
	t.Cleanup(func() { restoreAdmission(t, "ValidatingAdmissionPolicyBinding", "aicr-operator-plans") })
	waitCondition(t, "Stalled", string(domain.StallAdmissionPolicyMissing), "aicr-operator-plans is missing")

	mallory := as(cmEditorUser)
	forged := resealed(kept, map[string]string{jobs.OutputKey: forgedRecipe})
	require.NoError(t, mallory.Delete(ctx, kept))
	require.Eventually(t, func() bool { return mallory.Create(ctx, forged.DeepCopy()) == nil },
		waitFor, tick, "without its binding the plans policy enforces nothing, once the API server has noticed")
	require.NoError(t, k8s.Get(ctx, client.ObjectKeyFromObject(forged), forged))
	restoreAdmission(t, "ValidatingAdmissionPolicyBinding", "aicr-operator-plans")
	t.Cleanup(func() { w.resolveBack(t, nil) })

	require.NoError(t, setOverride(ctx, "999.0.2"))
	require.Eventually(t, func() bool {
		live := &corev1.ConfigMap{}
		return k8s.Get(ctx, client.ObjectKeyFromObject(forged), live) == nil && live.UID != forged.UID &&
			live.Annotations[aicrv1alpha1.AnnotationSeal] != ""
	}, waitFor, tick, "the resealed recipe is replaced by the operator's own")
	live := &corev1.ConfigMap{}
	require.NoError(t, k8s.Get(ctx, client.ObjectKeyFromObject(forged), live))
	assert.NotContains(t, live.Data[jobs.OutputKey], "backdoor", "the forged recipe is never used")
}

// resealed is a copy of the operator's kept result with other data, as an identity without the
// key can make it: the operator's labels and annotations (its seal included), immutable, and the
// content digest recomputed over the new data.
func resealed(kept *corev1.ConfigMap, data map[string]string) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: kept.Name, Namespace: kept.Namespace,
		Labels: kept.Labels, Annotations: map[string]string{}}, Immutable: kept.Immutable, Data: data}
	for k, v := range kept.Annotations {
		cm.Annotations[k] = v
	}
	raw, err := json.Marshal(struct {
		Data map[string]string `json:"data,omitempty"`
	}{data})
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(raw)
	cm.Annotations[aicrv1alpha1.AnnotationContentDigest] = "sha256:" + hex.EncodeToString(sum[:])
	return cm
}
