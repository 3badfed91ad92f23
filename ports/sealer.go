package ports

import (
	"encoding/binary"
	"errors"
	"time"
)

// ErrBadSeal reports a seal that is missing or was not made by the operator's current key
// for that object and content: whoever wrote it, the operator does not trust what it seals.
var ErrBadSeal = errors.New("not sealed by the operator's key")

// SealSubject is the object a seal is bound to: a seal copied to another object, or to the same
// name recreated (a new UID), does not verify.
type SealSubject struct {
	// Kind is the object's kind (ConfigMap, RuntimeRollout).
	Kind string
	// Namespace is empty for a cluster-scoped object.
	Namespace string
	Name      string
	// UID is the object's UID as the API server assigned it.
	UID string
}

// sealDomain starts every sealed message, so a seal is never valid for another protocol.
const sealDomain = "operator.aicr.run/seal/v1"

// Message is the canonical message a seal of content for s signs: the domain, the kind,
// namespace, name and UID of s and content, each preceded by its length (8 bytes, big-endian),
// so no two different subjects and contents give the same message.
func (s SealSubject) Message(content []byte) []byte {
	fields := [][]byte{[]byte(sealDomain), []byte(s.Kind), []byte(s.Namespace), []byte(s.Name), []byte(s.UID), content}
	n := 0
	for _, f := range fields {
		n += 8 + len(f)
	}
	out := make([]byte, 0, n)
	for _, f := range fields {
		out = binary.BigEndian.AppendUint64(out, uint64(len(f)))
		out = append(out, f...)
	}
	return out
}

// Sealer seals state the operator writes and later trusts, with a key only the operator can
// read: unlike a digest, a seal cannot be recomputed by whoever can write the object.
//
// Contract: Seal is deterministic for one key; Verify returns nil only for the seal Seal returns
// for the same subject and content under the current key, and an error wrapping ErrBadSeal for
// anything else, an empty seal included. Neither does I/O.
type Sealer interface {
	// Seal returns the seal of content on the object subject.
	Seal(subject SealSubject, content []byte) string
	// Verify checks seal against content on the object subject.
	Verify(subject SealSubject, content []byte, seal string) error
	// KeyMadeAt is when the current key was made (the creation time the API server gave the
	// object holding it; zero when unknown): state written before it cannot carry its seal.
	KeyMadeAt() time.Time
}
