package ports

import "time"

// Clock is the only source of the current time for the domain. The domain
// never calls time.Now, so tests can move time with a fake clock and never
// sleep. Now must be safe for concurrent use and never blocks.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
}
