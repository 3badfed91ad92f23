// Package clock is the real ports.Clock: the only place the operator reads the wall clock.
package clock

import (
	"time"

	"github.com/NVIDIA/aicr/ports"
)

// Real reads the wall clock.
type Real struct{}

var _ ports.Clock = Real{}

// New returns the real clock.
func New() Real { return Real{} }

// Now returns the current time in UTC.
func (Real) Now() time.Time { return time.Now().UTC() }
