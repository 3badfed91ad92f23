package domain

import (
	"fmt"
	"time"

	"github.com/NVIDIA/aicr/ports"
)

// TrustPlanRecord returns nil when the operator may read a stored plan record (subject, with
// content and seal as SealPlanRecord's caller derives them) after its unkeyed checks passed:
// when its seal verifies, or when the API server created it before the operator's current key
// was made (createdAt before s.KeyMadeAt()), so no operator could have sealed it: a plan
// written before plans were sealed, or before the key was rotated. Another identity cannot
// backdate an object's creation time, so a record written while the plans policy's binding was
// missing after the key was made is refused: an error wrapping ports.ErrBadSeal.
func TrustPlanRecord(s ports.Sealer, subject ports.SealSubject, content []byte, seal string, createdAt time.Time) error {
	err := s.Verify(subject, content, seal)
	if err == nil {
		return nil
	}
	if made := s.KeyMadeAt(); !made.IsZero() && !createdAt.IsZero() && createdAt.Before(made) {
		return nil
	}
	return fmt.Errorf("%w: it was created at %s, after the seal key (made at %s)", err,
		createdAt.UTC().Format(time.RFC3339), s.KeyMadeAt().UTC().Format(time.RFC3339))
}
