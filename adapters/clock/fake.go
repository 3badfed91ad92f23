package clock

import (
	"sync"
	"time"

	"github.com/NVIDIA/aicr/ports"
)

// Fake is a ports.Clock that only moves when a test moves it, so no test sleeps for time to pass.
type Fake struct {
	mu  sync.Mutex
	now time.Time
}

var _ ports.Clock = (*Fake)(nil)

// NewFake returns a fake clock set to now.
func NewFake(now time.Time) *Fake { return &Fake{now: now} }

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Step moves the fake time forward by d.
func (f *Fake) Step(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
}

// Set sets the fake time.
func (f *Fake) Set(now time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = now
}
