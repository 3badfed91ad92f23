// Package docs holds the operator's documentation (operations.md, troubleshooting.md,
// install-eks.md and the generated api-reference.md) and the tests that keep it true: every
// stall reason of the domain has a troubleshooting section and no section names another,
// every kubectl aicr command and flag the pages use exists in the plugin, every admission
// policy the operator relies on is named, links between the pages resolve, and the EKS IAM
// policy is valid least-privilege JSON.
package docs
