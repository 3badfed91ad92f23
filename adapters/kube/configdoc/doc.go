// Package configdoc defines the documents the operator keeps in ConfigMaps of its namespace
// and how they are named and verified: the plan document (PLAN-1, PLAN-2, key plan.json in a
// ConfigMap labelled operator.aicr.run/role=plan and named aicr-plan-<16 hex>), the values
// of a plan's releases (PLAN-3, one key per release ID in a ConfigMap labelled role values
// and named aicr-values-<16 hex>), the recipe (key recipe.json, role recipe) and AICR's
// upgrade-check report (key report.json, role assessment). The resolver writes them; the
// operator and kubectl aicr read them. It also reads what the resolver needs of AICR's own
// snapshot and recipe (artifacts.go).
package configdoc
