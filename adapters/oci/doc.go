// Package oci implements the Registry port over an OCI registry with
// oras-go (REG-1): upstream charts are mirrored to <registry>/charts/<name>
// after their archive digest is verified, bundle-local charts are pushed to
// <registry>/wrappers/<name>, rendered bundles and validation evidence go to
// <registry>/bundles/cluster, and everything is addressed by manifest digest.
// Package chartref maps a plan's releases to those pinned sources for engine
// adapters.
//
// Credentials come from a CredentialProvider: Static (a docker config Secret
// read by name), InCluster (plain HTTP with a generated login) or ECR (tokens
// from ECRAPI, signed with EKS Pod Identity or IRSA credentials, refreshed
// every 6 hours on the Clock port and written into Argo CD's repo-creds
// Secret by ArgoRepoCreds). Credential failures wrap the ports sentinels
// ErrCredentialsUnavailable, ErrCredentialsStale and ErrUnauthorized; the
// domain maps them to stall reasons (RES-6). Transient outages are retried
// with a bounded, context-aware backoff.
package oci
