package sealer_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/NVIDIA/aicr/adapters/sealer"
	"github.com/NVIDIA/aicr/ports"
)

var subject = ports.SealSubject{Kind: "ConfigMap", Namespace: "aicr-system", Name: "aicr-recipe-1", UID: "uid-1"}

func mustNew(t *testing.T, b byte) *sealer.Sealer {
	t.Helper()
	s, err := sealer.New(bytes.Repeat([]byte{b}, sealer.KeySize), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestNew_RefusesAKeyOfAnotherSize(t *testing.T) {
	for _, n := range []int{0, 16, 31, 33} {
		if _, err := sealer.New(make([]byte, n), time.Time{}); err == nil {
			t.Errorf("a %d-byte key was accepted", n)
		}
	}
}

func TestVerify_TheSealOfTheSameSubjectAndContent(t *testing.T) {
	s := mustNew(t, 1)
	seal := s.Seal(subject, []byte("content"))
	if err := s.Verify(subject, []byte("content"), seal); err != nil {
		t.Fatalf("the operator's own seal: %v", err)
	}
	if seal != s.Seal(subject, []byte("content")) {
		t.Error("Seal is not deterministic")
	}
}

// TestVerify_RefusesEverySealNotMadeForThisObjectAndContent: a missing seal, a seal of other
// content, of the same content on another object (or the same name recreated), an unkeyed digest
// of the content and a seal made with another key are all ErrBadSeal.
func TestVerify_RefusesEverySealNotMadeForThisObjectAndContent(t *testing.T) {
	s := mustNew(t, 1)
	other := subject
	other.UID = "uid-2"
	cases := map[string]string{
		"missing":           "",
		"other content":     s.Seal(subject, []byte("forged")),
		"other object":      s.Seal(other, []byte("content")),
		"other key":         mustNew(t, 2).Seal(subject, []byte("content")),
		"not hex":           "hmac-sha256:zz",
		"no algorithm":      s.Seal(subject, []byte("content"))[len("hmac-sha256:"):],
		"unkeyed digest":    "sha256:ed7002b439e9ac845f22357d822bac1444730fbdb6016d3ec9432297b9ec9f73",
		"truncated":         s.Seal(subject, []byte("content"))[:40],
		"another algorithm": "hmac-sha512:" + s.Seal(subject, []byte("content"))[len("hmac-sha256:"):],
	}
	for name, seal := range cases {
		if err := s.Verify(subject, []byte("content"), seal); !errors.Is(err, ports.ErrBadSeal) {
			t.Errorf("%s: Verify = %v, want ErrBadSeal", name, err)
		}
	}
}
