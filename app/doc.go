// Package app holds the operator's use cases and its configuration. It imports only domain,
// ports and the standard library (and wire for provider sets), so use cases and
// configuration rules are tested without Kubernetes.
package app
