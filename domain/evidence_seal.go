package domain

import (
	"fmt"

	"github.com/NVIDIA/aicr/ports"
)

// SealedEvidence is what the operator's seal of a rollout's evidence reference covers: the
// registry digest of the deployment-validation evidence it stored for that rollout. It starts
// with a line no outcome seal (SealedOutcome) starts with, so neither seal verifies as the other.
func SealedEvidence(evidence ports.Digest) []byte {
	return []byte("evidence\n" + string(evidence))
}

// TrustedEvidence returns the evidence digest a rollout (subject) records, only when seal is the
// operator's seal of it (SealedEvidence): another identity can write the reference while the
// approval policy's binding is missing, and a digest anyone can recompute proves nothing. No
// evidence returns "" and no error; evidence without a valid seal returns an error wrapping
// ports.ErrBadSeal, and the reference must not be reported as the rollout's evidence.
func TrustedEvidence(s ports.Sealer, subject ports.SealSubject, evidence, seal string) (ports.Digest, error) {
	if evidence == "" {
		return "", nil
	}
	if err := s.Verify(subject, SealedEvidence(ports.Digest(evidence)), seal); err != nil {
		return "", fmt.Errorf("evidence %s of rollout %s: %w", evidence, subject.Name, err)
	}
	return ports.Digest(evidence), nil
}
