package domain

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// maxWindowDuration bounds one change window: a week, so the occurrences that may hold an
// instant start at most eight local days before it.
const maxWindowDuration = 7 * 24 * time.Hour

// maxWindowSearch bounds how far ahead NextOpen looks for an open window.
const maxWindowSearch = 366 * 24 * time.Hour

// ChangeWindow is a recurring time in which disruptive steps may start: it opens at Start
// (minutes after local midnight) in TimeZone on each of Days (every day when empty) and stays
// open for Duration of elapsed time, across a daylight-saving change too. A local start time a
// daylight-saving change skips opens one hour later; one it repeats opens at its second
// occurrence, in standard time (time.Date's normalisation).
type ChangeWindow struct {
	Days     []time.Weekday
	Start    time.Duration
	Duration time.Duration
	TimeZone string
}

// Freeze is a dated range [Start, End) in which no disruptive step starts, windows or not.
type Freeze struct {
	Start  time.Time
	End    time.Time
	Reason string
}

// ChangePolicy is the runtime's spec.changePolicy: when a disruptive step may start and which
// workloads it must not disrupt. No windows means any time outside a freeze.
type ChangePolicy struct {
	Windows []ChangeWindow
	Freezes []Freeze
	// ProtectedPods is a label selector (Kubernetes selector syntax) of the Pods a disruptive
	// step waits for while any runs on a node the step can disrupt ("" protects nothing).
	ProtectedPods string
	// ProtectedNamespaces limits ProtectedPods to these namespaces (empty: every namespace).
	ProtectedNamespaces []string
}

// WindowState says whether a disruptive step may start at an instant and, when not, until when
// it waits and why.
type WindowState struct {
	// Open reports that the instant is inside an allowed window and outside every freeze.
	Open bool
	// Opens is the next instant that is (zero when none within a year).
	Opens time.Time
	// Why names what holds the step: a freeze and its reason, or the windows being closed.
	Why string
}

// ErrChangePolicyInvalid reports a change policy the domain cannot evaluate.
var ErrChangePolicyInvalid = errors.New("invalid change policy")

// At judges the policy at now. An error (a time zone the operator does not know, a duration
// out of bounds) wraps ErrChangePolicyInvalid.
func (p ChangePolicy) At(now time.Time) (WindowState, error) {
	zones, err := p.zones()
	if err != nil {
		return WindowState{}, err
	}
	st := WindowState{}
	t := now
	for t.Before(now.Add(maxWindowSearch)) {
		if f := p.freezeAt(t); f != nil {
			if st.Why == "" {
				st.Why = freezeWhy(*f)
			}
			t = f.End
			continue
		}
		if len(p.Windows) == 0 || p.inWindow(t, zones) {
			st.Opens = t
			st.Open = t.Equal(now)
			if st.Open {
				st.Why = ""
			}
			return st, nil
		}
		if st.Why == "" {
			st.Why = p.closedWhy()
		}
		if t = p.nextStart(t, zones); t.IsZero() {
			break
		}
	}
	return st, nil
}

// zones loads each window's time zone and checks its bounds.
func (p ChangePolicy) zones() ([]*time.Location, error) {
	zones := make([]*time.Location, len(p.Windows))
	for i, w := range p.Windows {
		if w.Duration <= 0 || w.Duration > maxWindowDuration || w.Start < 0 || w.Start >= 24*time.Hour {
			return nil, fmt.Errorf("change window %d: start %s, duration %s out of bounds: %w",
				i+1, w.Start, w.Duration, ErrChangePolicyInvalid)
		}
		loc, err := time.LoadLocation(w.TimeZone)
		if err != nil {
			return nil, fmt.Errorf("change window %d: unknown time zone %q: %w", i+1, w.TimeZone, ErrChangePolicyInvalid)
		}
		zones[i] = loc
	}
	return zones, nil
}

func (p ChangePolicy) closedWhy() string {
	names := make([]string, len(p.Windows))
	for i, w := range p.Windows {
		names[i] = w.String()
	}
	return "outside the change windows (" + strings.Join(names, "; ") + ")"
}

func (p ChangePolicy) freezeAt(t time.Time) *Freeze {
	for i := range p.Freezes {
		if f := &p.Freezes[i]; !t.Before(f.Start) && t.Before(f.End) {
			return f
		}
	}
	return nil
}

func freezeWhy(f Freeze) string {
	why := "frozen from " + f.Start.UTC().Format(time.RFC3339) + " to " + f.End.UTC().Format(time.RFC3339)
	if f.Reason != "" {
		why += " (" + f.Reason + ")"
	}
	return why
}

// inWindow reports whether t is inside an occurrence of a window: one that opened on one of
// the eight local days up to t's and has not closed yet.
func (p ChangePolicy) inWindow(t time.Time, zones []*time.Location) bool {
	for i, w := range p.Windows {
		local := t.In(zones[i])
		for back := 0; back <= 8; back++ {
			open, ok := w.opening(local.AddDate(0, 0, -back), zones[i])
			if ok && !t.Before(open) && t.Before(open.Add(w.Duration)) {
				return true
			}
		}
	}
	return false
}

// nextStart is the first window opening after t (within the next nine local days, which
// holds one of every window).
func (p ChangePolicy) nextStart(t time.Time, zones []*time.Location) time.Time {
	var next time.Time
	for i, w := range p.Windows {
		local := t.In(zones[i])
		for ahead := 0; ahead <= 8; ahead++ {
			open, ok := w.opening(local.AddDate(0, 0, ahead), zones[i])
			if ok && open.After(t) && (next.IsZero() || open.Before(next)) {
				next = open
				break
			}
		}
	}
	return next
}

// opening is the instant the window opens on day's local date, if it opens that weekday.
func (w ChangeWindow) opening(day time.Time, loc *time.Location) (time.Time, bool) {
	if len(w.Days) > 0 && !weekdayIn(day.Weekday(), w.Days) {
		return time.Time{}, false
	}
	y, m, d := day.Date()
	minutes := int(w.Start / time.Minute)
	return time.Date(y, m, d, minutes/60, minutes%60, 0, 0, loc), true
}

func weekdayIn(d time.Weekday, days []time.Weekday) bool {
	for _, x := range days {
		if x == d {
			return true
		}
	}
	return false
}

// String describes the window as the status names it: "Sat,Sun 02:00 Europe/Berlin for 4h0m0s".
func (w ChangeWindow) String() string {
	days := "daily"
	if len(w.Days) > 0 {
		names := make([]string, len(w.Days))
		for i, d := range w.Days {
			names[i] = d.String()[:3]
		}
		days = strings.Join(names, ",")
	}
	minutes := int(w.Start / time.Minute)
	return fmt.Sprintf("%s %02d:%02d %s for %s", days, minutes/60, minutes%60, w.TimeZone, w.Duration)
}
