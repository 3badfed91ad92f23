// Package ports declares the interfaces the domain drives (DeploymentEngine,
// JobRunner, Registry, Clock), their engine-neutral value types and the
// sentinel errors adapters return. It imports only the standard library so
// that any adapter (Argo CD, Flux, Helm, Sveltos, a test double) can implement
// it without pulling in another adapter's types.
package ports
