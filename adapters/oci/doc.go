// Package oci implements the Registry port over an OCI registry with
// oras-go (REG-1): upstream charts are mirrored to <registry>/charts/<name>
// after their archive digest is verified, bundle-local charts are pushed to
// <registry>/wrappers/<name>, rendered bundles and validation evidence go to
// <registry>/bundles/cluster, and everything is addressed by manifest digest.
// Trust on first use, upstream transport rules and the credential providers
// (Static, InCluster, ECR) are recorded in docs/design/registry.md.
package oci
