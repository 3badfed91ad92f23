// Package oci implements the Registry port over an OCI registry with
// oras-go (REG-1): upstream charts are mirrored to <registry>/charts/<name>
// after their archive digest is verified, bundle-local charts are pushed to
// <registry>/wrappers/<name>, rendered bundles and validation evidence go to
// <registry>/bundles/cluster, and everything is addressed by manifest digest.
// Package chartref maps a plan's releases to those pinned sources for engine
// adapters.
//
// Trust on first use: a mirrored tag <registry>/charts/<name>:<version>
// records its upstream (org.opencontainers.image.source) and archive digest
// (operator.aicr.run/upstream-archive-digest). Mirroring that version again
// reuses the tag when both match and its chart layer is that archive, and
// refuses anything else with ports.ErrArchiveRejected; a tag is never moved.
// Mirrored repositories are deliberately not namespaced by upstream: two
// upstreams publishing one chart name and version are refused instead (the
// second one stalls ChartSourceUnsupported). Namespacing would move every
// chart of existing plans, which chartref derives as <registry>/charts/<name>,
// and widen the Argo CD AppProject's sourceRepos from <registry>/charts/*
// (one path segment) to <registry>/charts/**. Bundles and evidence are tagged
// <name>-<manifest digest> so a reused name never moves an earlier tag (a tag
// holding other content is ports.ErrForeignObject).
//
// Upstream requests are https only (a transport refuses anything else,
// including redirects and token realms). A Helm repository's archive URL must
// be https on the repository's host and its index and archive requests never
// follow a redirect off that host; oci:// upstreams may redirect to other https
// hosts (blob storage), every blob being verified against its digest. Every
// client has an overall timeout.
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
