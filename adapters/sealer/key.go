package sealer

import (
	"context"
	"crypto/rand"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/kube/wellknown"
)

// SecretName is the Secret in the operator namespace that holds the key; the chart grants the
// operator get on this name only.
const SecretName = "aicr-operator-seal-key" //nolint:gosec // the name of the Secret, not a credential

// KeyField is the Secret's data key holding the KeySize key bytes.
const KeyField = "key"

// Load returns a Sealer over the key in the Secret SecretName of namespace, read without a cache
// (the operator may not list or watch Secrets). When the Secret is absent it creates it,
// immutable, with KeySize random bytes; when another replica created it first, it reads that
// one. The Sealer's KeyMadeAt is the Secret's creation time. A Secret that is mutable or does
// not hold KeySize bytes is refused: the operator does not start on a key it did not make the
// way it makes one.
func Load(ctx context.Context, r client.Reader, w client.Writer, namespace string) (*Sealer, error) {
	key := client.ObjectKey{Namespace: namespace, Name: SecretName}
	secret := &corev1.Secret{}
	err := r.Get(ctx, key, secret)
	if apierrors.IsNotFound(err) {
		secret, err = create(ctx, w, namespace)
		if apierrors.IsAlreadyExists(err) {
			secret = &corev1.Secret{}
			err = r.Get(ctx, key, secret)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read the seal key Secret %s/%s: %w", namespace, SecretName, err)
	}
	if secret.Immutable == nil || !*secret.Immutable || len(secret.Data[KeyField]) != KeySize {
		return nil, fmt.Errorf("the seal key Secret %s/%s is not immutable with %d bytes under %q: "+
			"delete it and restart the operator, which makes a new key (docs/operations.md, key rotation)",
			namespace, SecretName, KeySize, KeyField)
	}
	return New(secret.Data[KeyField], secret.CreationTimestamp.Time)
}

func create(ctx context.Context, w client.Writer, namespace string) (*corev1.Secret, error) {
	raw := make([]byte, KeySize)
	if _, err := rand.Read(raw); err != nil {
		return nil, fmt.Errorf("make a seal key: %w", err)
	}
	immutable := true
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: SecretName,
			Labels: map[string]string{wellknown.LabelManagedBy: wellknown.ManagedByValue}},
		Immutable: &immutable,
		Type:      corev1.SecretTypeOpaque,
		Data:      map[string][]byte{KeyField: raw},
	}
	if err := w.Create(ctx, secret); err != nil {
		return nil, err
	}
	return secret, nil
}
