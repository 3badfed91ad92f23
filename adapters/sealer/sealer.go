package sealer

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/NVIDIA/aicr/ports"
)

// KeySize is the size of the key in bytes.
const KeySize = 32

// sealPrefix names the algorithm of a seal; the hex HMAC follows.
const sealPrefix = "hmac-sha256:"

// Sealer seals with one key (ports.Sealer).
type Sealer struct {
	key []byte
	// madeAt is when the key was made (KeyMadeAt).
	madeAt time.Time
}

var _ ports.Sealer = (*Sealer)(nil)

// New returns a Sealer over key, which must be KeySize bytes, made at madeAt (zero: unknown).
func New(key []byte, madeAt time.Time) (*Sealer, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("seal key has %d bytes, want %d", len(key), KeySize)
	}
	return &Sealer{key: append([]byte(nil), key...), madeAt: madeAt}, nil
}

// KeyMadeAt returns when the key was made (ports.Sealer).
func (s *Sealer) KeyMadeAt() time.Time { return s.madeAt }

// Seal returns "hmac-sha256:" and the hex HMAC-SHA256 of subject's canonical message over content.
func (s *Sealer) Seal(subject ports.SealSubject, content []byte) string {
	return sealPrefix + hex.EncodeToString(s.mac(subject, content))
}

// Verify returns nil when seal is Seal(subject, content), compared in constant time; otherwise
// an error wrapping ports.ErrBadSeal that says whether it was missing or did not match.
func (s *Sealer) Verify(subject ports.SealSubject, content []byte, seal string) error {
	if seal == "" {
		return fmt.Errorf("%s %s has no seal: %w", subject.Kind, name(subject), ports.ErrBadSeal)
	}
	got, err := hex.DecodeString(strings.TrimPrefix(seal, sealPrefix))
	if !strings.HasPrefix(seal, sealPrefix) || err != nil || !hmac.Equal(got, s.mac(subject, content)) {
		return fmt.Errorf("the seal of %s %s (UID %s) does not match its content: %w", subject.Kind, name(subject),
			subject.UID, ports.ErrBadSeal)
	}
	return nil
}

func (s *Sealer) mac(subject ports.SealSubject, content []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write(subject.Message(content))
	return m.Sum(nil)
}

func name(s ports.SealSubject) string {
	if s.Namespace == "" {
		return s.Name
	}
	return s.Namespace + "/" + s.Name
}
