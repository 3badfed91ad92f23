// Package docs holds the operator's documentation (operations.md, troubleshooting.md,
// install-eks.md, the generated api-reference.md and the design records in design/) and the
// tests that keep it true: every stall reason of the domain has a troubleshooting section and
// no section names another, every kubectl aicr command and flag the pages use exists in the
// plugin, every admission policy the operator relies on is named, links between the pages
// resolve, the EKS IAM policy is valid least-privilege JSON, and across the repository every
// cited requirement ID is defined in design/requirements.md, every named path exists and
// nothing cites a document outside the repository.
package docs
