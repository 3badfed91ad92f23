package domain_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/domain"
)

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestChangePolicyAt(t *testing.T) {
	t.Parallel()
	weekend := domain.ChangeWindow{Days: []time.Weekday{time.Saturday, time.Sunday}, Start: 2 * time.Hour,
		Duration: 4 * time.Hour, TimeZone: "Europe/Berlin"}
	daily := func(start time.Duration, d time.Duration, zone string) domain.ChangeWindow {
		return domain.ChangeWindow{Start: start, Duration: d, TimeZone: zone}
	}
	yearEnd := domain.Freeze{Start: utc("2026-12-19T00:00:00Z"), End: utc("2027-01-04T00:00:00Z"), Reason: "year-end"}
	tests := []struct {
		name   string
		policy domain.ChangePolicy
		now    string
		open   bool
		opens  string
		why    string
	}{
		{name: "no windows and no freezes: always open", now: "2026-12-02T10:00:00Z", open: true, opens: "2026-12-02T10:00:00Z"},
		{name: "inside a weekend window, in its time zone", policy: domain.ChangePolicy{Windows: []domain.ChangeWindow{weekend}},
			now: "2026-12-05T01:30:00Z", open: true, opens: "2026-12-05T01:30:00Z"},
		{name: "a weekday waits for Saturday 02:00 Berlin (01:00 UTC in winter)",
			policy: domain.ChangePolicy{Windows: []domain.ChangeWindow{weekend}},
			now:    "2026-12-02T10:00:00Z", opens: "2026-12-05T01:00:00Z", why: "outside the change windows (Sat,Sun 02:00 Europe/Berlin for 4h0m0s)"},
		{name: "the window closes at its end, exclusive", policy: domain.ChangePolicy{Windows: []domain.ChangeWindow{weekend}},
			now: "2026-12-06T05:00:00Z", opens: "2026-12-12T01:00:00Z", why: "outside the change windows (Sat,Sun 02:00 Europe/Berlin for 4h0m0s)"},
		{name: "summer time: Saturday 02:00 Berlin is 00:00 UTC", policy: domain.ChangePolicy{Windows: []domain.ChangeWindow{weekend}},
			now: "2026-07-01T12:00:00Z", opens: "2026-07-04T00:00:00Z", why: "outside the change windows (Sat,Sun 02:00 Europe/Berlin for 4h0m0s)"},
		{name: "a window that spans midnight is open the next morning",
			policy: domain.ChangePolicy{Windows: []domain.ChangeWindow{{Days: []time.Weekday{time.Friday},
				Start: 22 * time.Hour, Duration: 8 * time.Hour, TimeZone: "UTC"}}},
			now: "2026-12-05T05:59:00Z", open: true, opens: "2026-12-05T05:59:00Z"},
		{name: "spring forward: 02:30 does not exist and opens at 03:30 CEST",
			policy: domain.ChangePolicy{Windows: []domain.ChangeWindow{daily(150*time.Minute, time.Hour, "Europe/Berlin")}},
			now:    "2027-03-28T00:00:00Z", opens: "2027-03-28T01:30:00Z", why: "outside the change windows (daily 02:30 Europe/Berlin for 1h0m0s)"},
		{name: "spring forward: a window's duration is elapsed time across the change",
			policy: domain.ChangePolicy{Windows: []domain.ChangeWindow{daily(time.Hour, 4*time.Hour, "Europe/Berlin")}},
			now:    "2027-03-28T03:59:00Z", open: true, opens: "2027-03-28T03:59:00Z"},
		{name: "fall back: 02:30 happens twice and opens at the second, 01:30 UTC",
			policy: domain.ChangePolicy{Windows: []domain.ChangeWindow{daily(150*time.Minute, 30*time.Minute, "Europe/Berlin")}},
			now:    "2026-10-25T00:30:00Z", opens: "2026-10-25T01:30:00Z", why: "outside the change windows (daily 02:30 Europe/Berlin for 30m0s)"},
		{name: "another time zone: 09:00 in Los Angeles", policy: domain.ChangePolicy{
			Windows: []domain.ChangeWindow{daily(9*time.Hour, time.Hour, "America/Los_Angeles")}},
			now: "2026-12-02T10:00:00Z", opens: "2026-12-02T17:00:00Z", why: "outside the change windows (daily 09:00 America/Los_Angeles for 1h0m0s)"},
		{name: "a freeze denies inside a window and says why", policy: domain.ChangePolicy{
			Windows: []domain.ChangeWindow{weekend}, Freezes: []domain.Freeze{yearEnd}},
			now: "2026-12-19T02:00:00Z", opens: "2027-01-09T01:00:00Z",
			why: "frozen from 2026-12-19T00:00:00Z to 2027-01-04T00:00:00Z (year-end)"},
		{name: "a freeze without windows ends at its end", policy: domain.ChangePolicy{Freezes: []domain.Freeze{yearEnd}},
			now: "2026-12-24T12:00:00Z", opens: "2027-01-04T00:00:00Z",
			why: "frozen from 2026-12-19T00:00:00Z to 2027-01-04T00:00:00Z (year-end)"},
		{name: "a freeze that ends inside a window opens at the freeze's end", policy: domain.ChangePolicy{
			Windows: []domain.ChangeWindow{daily(0, 24*time.Hour, "UTC")}, Freezes: []domain.Freeze{
				{Start: utc("2026-12-02T00:00:00Z"), End: utc("2026-12-02T18:00:00Z")}}},
			now: "2026-12-02T10:00:00Z", opens: "2026-12-02T18:00:00Z",
			why: "frozen from 2026-12-02T00:00:00Z to 2026-12-02T18:00:00Z"},
		{name: "back-to-back freezes are skipped together", policy: domain.ChangePolicy{Freezes: []domain.Freeze{
			{Start: utc("2026-12-01T00:00:00Z"), End: utc("2026-12-03T00:00:00Z"), Reason: "a"},
			{Start: utc("2026-12-03T00:00:00Z"), End: utc("2026-12-05T00:00:00Z"), Reason: "b"}}},
			now: "2026-12-02T00:00:00Z", opens: "2026-12-05T00:00:00Z",
			why: "frozen from 2026-12-01T00:00:00Z to 2026-12-03T00:00:00Z (a)"},
		{name: "a year of freeze: no window opens within a year", policy: domain.ChangePolicy{Freezes: []domain.Freeze{
			{Start: utc("2026-01-01T00:00:00Z"), End: utc("2028-01-01T00:00:00Z"), Reason: "decommission"}}},
			now: "2026-12-02T00:00:00Z", why: "frozen from 2026-01-01T00:00:00Z to 2028-01-01T00:00:00Z (decommission)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.policy.At(utc(tt.now))
			require.NoError(t, err)
			assert.Equal(t, tt.open, got.Open)
			assert.Equal(t, tt.why, got.Why)
			if tt.opens == "" {
				assert.True(t, got.Opens.IsZero(), "opens %s", got.Opens)
				return
			}
			assert.Equal(t, utc(tt.opens), got.Opens.UTC())
		})
	}
}

func TestChangePolicyAt_RefusesWhatItCannotJudge(t *testing.T) {
	t.Parallel()
	for name, w := range map[string]domain.ChangeWindow{
		"an unknown time zone":        {Duration: time.Hour, TimeZone: "Mars/Olympus_Mons"},
		"a window longer than a week": {Duration: 8 * 24 * time.Hour},
		"a window without a duration": {},
		"a start past the day's end":  {Start: 24 * time.Hour, Duration: time.Hour},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := domain.ChangePolicy{Windows: []domain.ChangeWindow{w}}.At(t0)
			require.ErrorIs(t, err, domain.ErrChangePolicyInvalid)
			assert.Contains(t, err.Error(), "change window 1")
		})
	}
}

func TestChangeWindowString(t *testing.T) {
	t.Parallel()
	w := domain.ChangeWindow{Days: []time.Weekday{time.Saturday, time.Sunday}, Start: 2*time.Hour + 5*time.Minute,
		Duration: 4 * time.Hour, TimeZone: "Europe/Berlin"}
	assert.Equal(t, "Sat,Sun 02:05 Europe/Berlin for 4h0m0s", w.String())
	assert.Equal(t, "daily 00:00 UTC for 1h0m0s", domain.ChangeWindow{Duration: time.Hour, TimeZone: "UTC"}.String())
}
