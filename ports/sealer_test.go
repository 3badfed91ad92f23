package ports_test

import (
	"bytes"
	"testing"

	"github.com/NVIDIA/aicr/ports"
)

// TestSealSubject_MessageSeparatesEveryField: moving bytes between two fields, or between the
// subject and the content, changes the message, so a seal of one never verifies the other.
func TestSealSubject_MessageSeparatesEveryField(t *testing.T) {
	base := ports.SealSubject{Kind: "ConfigMap", Namespace: "ns", Name: "a", UID: "u"}
	messages := [][]byte{
		base.Message([]byte("content")),
		ports.SealSubject{Kind: "ConfigMap", Namespace: "nsa", Name: "", UID: "u"}.Message([]byte("content")),
		ports.SealSubject{Kind: "ConfigMapns", Namespace: "", Name: "a", UID: "u"}.Message([]byte("content")),
		ports.SealSubject{Kind: "ConfigMap", Namespace: "ns", Name: "a", UID: "ucontent"}.Message(nil),
		ports.SealSubject{Kind: "RuntimeRollout", Namespace: "ns", Name: "a", UID: "u"}.Message([]byte("content")),
		ports.SealSubject{Kind: "ConfigMap", Namespace: "ns", Name: "a", UID: "v"}.Message([]byte("content")),
		base.Message([]byte("content2")),
	}
	for i := range messages {
		for j := i + 1; j < len(messages); j++ {
			if bytes.Equal(messages[i], messages[j]) {
				t.Errorf("messages %d and %d are equal: %q", i, j, messages[i])
			}
		}
	}
	if !bytes.Equal(base.Message([]byte("content")), base.Message([]byte("content"))) {
		t.Error("the message of one subject and content changes between calls")
	}
}
