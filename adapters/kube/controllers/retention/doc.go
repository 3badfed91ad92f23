// Package retention is the retention controller: on a timer and on the runtime's changes it
// deletes, by label and only its own, what RET-1..3 no longer keep: superseded plans with the
// recipe, values and kept results only they referenced, and old terminal rollouts. What to keep
// is decided by the domain (domain.PlansToDelete, RolloutsToDelete, JobResultsToDelete); this package reads the objects, deletes
// with preconditions and records what it deleted.
package retention
