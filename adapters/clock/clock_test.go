package clock_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/NVIDIA/aicr/adapters/clock"
)

func TestFakeMovesOnlyWhenStepped(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	c := clock.NewFake(t0)
	assert.Equal(t, t0, c.Now())
	c.Step(6 * time.Hour)
	assert.Equal(t, t0.Add(6*time.Hour), c.Now())
	c.Set(t0)
	assert.Equal(t, t0, c.Now())
}

func TestRealIsUTC(t *testing.T) {
	t.Parallel()
	assert.Equal(t, time.UTC, clock.New().Now().Location())
}
