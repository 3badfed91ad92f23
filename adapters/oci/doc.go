// Package oci implements the Registry port over an OCI registry with
// oras-go (REG-1): upstream charts are mirrored to <registry>/charts/<name>
// after their archive digest is verified, bundle-local charts are pushed to
// <registry>/wrappers/<name>, rendered bundles and validation evidence go to
// <registry>/bundles/cluster, and everything is addressed by manifest digest.
// Bundles are pushed by the AICR bundle Job itself (`aicr bundle -o oci://`,
// one gzip tar layer of artifact type application/vnd.nvidia.aicr.artifact)
// with the credential BundleTarget hands it; PullBundle reads them only by
// digest and verifies the artifact before unpacking it (bundle.go).
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
// (one path segment) to <registry>/charts/**. Evidence is tagged
// <name>-<manifest digest> so a reused name never moves an earlier tag (a tag
// holding other content is ports.ErrForeignObject); a bundle is tagged with the
// name of the Job that rendered it, and the operator never reads it by tag.
//
// Upstream requests are https only (a transport refuses anything else,
// including redirects and token realms). A Helm repository's archive URL must
// be https on the repository's host and its index and archive requests never
// follow a redirect off that host; oci:// upstreams may redirect to other https
// hosts (blob storage), every blob being verified against its digest. Every
// client has an overall timeout.
//
// Credentials come from a CredentialProvider. Argo CD only ever pulls, so it
// never receives the operator's push credential: every provider keeps a
// read-write login for the operator and a distinct read-only one for Argo CD's
// repo-creds Secret.
//
//   - Static reads the operator's credential from an admin-provided docker
//     config Secret by name. The repo-creds Secret is the administrator's too
//     and should hold a pull-only credential.
//   - InCluster (plain HTTP) reads the operator's push login from a Secret of
//     the operator namespace by name (keys username and password; e.g.
//     InClusterPushUsername). Argo CD's repo-creds Secret holds the pull login
//     (e.g. InClusterPullUsername, plus insecureOCIForceHttp: "true"), which
//     the operator never reads. The administrator creates both Secrets,
//     because whoever configures the registry's users is the only one who
//     knows them: the registry must hold both logins and enforce per-user
//     access (the pull user may only read; a registry that lets every
//     authenticated user push, such as distribution with htpasswd alone,
//     defeats the separation; zot's accessControl or Harbor robot accounts
//     work). The chart therefore neither generates a login nor needs
//     lookup, so Argo CD can render it. Generating both in the operator was
//     rejected: it would still not configure the registry, and it would need
//     create on Secrets in Argo CD's namespace, which RBAC cannot restrict by
//     name (the operator could then create Argo CD cluster and repository
//     Secrets).
//   - ECR keeps two tokens. Its own, for its pushes, comes from ECR's
//     GetAuthorizationToken (awsauth.ECRAPI, over aws-sdk-go-v2) called with
//     the credentials of the SDK's default chain (EKS Pod Identity or IRSA) and
//     is never written anywhere. Argo CD's comes from the same call made with the
//     credentials of a pull-only role the operator assumes (STS AssumeRole from
//     its own credentials, session awsauth.PullRoleSessionName): an ECR token carries
//     the permissions of the identity that requested it. ArgoRepoCreds writes
//     that one into Argo CD's repo-creds Secret. Both are refreshed at start
//     and every 6 hours on the Clock port. The pull role needs
//     ecr:GetAuthorizationToken and the read actions on the repository only,
//     and a trust policy naming the operator's role (sts:AssumeRole); the
//     operator's role needs sts:AssumeRole on it. The operator refuses to
//     start without one (--registry-aws-pull-role-arn).
//
// Credential failures wrap the ports sentinels ErrCredentialsUnavailable,
// ErrCredentialsStale and ErrUnauthorized; the domain maps them to stall
// reasons (RES-6). With ECR, Argo CD's token failing while it has none valid
// fails the operator's calls too: an AssumeRole denial stalls Unauthorized.
// Transient outages are retried with a bounded, context-aware backoff.
package oci
