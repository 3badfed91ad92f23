package app

import "sort"

// sortedErrors orders errors by message so Validate reports them deterministically.
func sortedErrors(errs []error) []error {
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errs
}
