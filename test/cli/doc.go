// Package cli holds the end-to-end tests of kubectl aicr: the commands run in-process
// against an envtest API server carrying the chart's CRDs, RBAC and admission policies,
// as an impersonated approver and as users who are refused.
package cli
