package sealer_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/NVIDIA/aicr/adapters/sealer"
)

const ns = "aicr-system"

// TestLoad_CreatesAnImmutableRandomKeyOnceAndKeepsIt: the first start creates the Secret, a
// restart reads the same key (its seals still verify), and another installation's key differs.
func TestLoad_CreatesAnImmutableRandomKeyOnceAndKeepsIt(t *testing.T) {
	ctx := context.Background()
	c := fake.NewClientBuilder().Build()
	first, err := sealer.Load(ctx, c, c, ns)
	if err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{}
	if err = c.Get(ctx, client.ObjectKey{Namespace: ns, Name: sealer.SecretName}, secret); err != nil {
		t.Fatal(err)
	}
	if secret.Immutable == nil || !*secret.Immutable || len(secret.Data[sealer.KeyField]) != sealer.KeySize {
		t.Fatalf("the key Secret is not immutable with %d bytes: %+v", sealer.KeySize, secret)
	}
	again, err := sealer.Load(ctx, c, c, ns)
	if err != nil {
		t.Fatal(err)
	}
	if err = again.Verify(subject, []byte("x"), first.Seal(subject, []byte("x"))); err != nil {
		t.Errorf("a restart does not verify the seals of the key it made: %v", err)
	}
	elsewhere, err := sealer.Load(ctx, c, c, "other")
	if err != nil {
		t.Fatal(err)
	}
	if elsewhere.Verify(subject, []byte("x"), first.Seal(subject, []byte("x"))) == nil {
		t.Error("two keys made apart verify each other's seals: the key is not random")
	}
}

// TestLoad_RefusesAKeySecretNotMadeAsTheOperatorMakesIt: a mutable Secret or one with a key of
// the wrong size under the name stops the start with an error saying how to recover.
func TestLoad_RefusesAKeySecretNotMadeAsTheOperatorMakesIt(t *testing.T) {
	immutable := true
	cases := map[string]*corev1.Secret{
		"mutable":   {Data: map[string][]byte{sealer.KeyField: make([]byte, sealer.KeySize)}},
		"short key": {Immutable: &immutable, Data: map[string][]byte{sealer.KeyField: make([]byte, 8)}},
		"no key":    {Immutable: &immutable, Data: map[string][]byte{"other": make([]byte, sealer.KeySize)}},
	}
	for name, secret := range cases {
		secret.ObjectMeta = metav1.ObjectMeta{Namespace: ns, Name: sealer.SecretName}
		c := fake.NewClientBuilder().WithObjects(secret).Build()
		if _, err := sealer.Load(context.Background(), c, c, ns); err == nil {
			t.Errorf("%s: the key Secret was accepted", name)
		}
	}
}
