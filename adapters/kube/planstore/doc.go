// Package planstore is the operator's store of plans in ConfigMaps of its namespace (PLAN-1 to
// PLAN-7), in the layout of configdoc: the Writer writes a plan with its recipe, values and
// assessment ConfigMaps, each create-once, and rebuilds a recorded plan's lost parts; the
// Reader reads a plan only once plantrust trusts it, with its values and recipes checked
// against the digests it records, and lists the stored plans for retention. Writes serializes
// the writers with a retention pass.
package planstore
