// Package argocd is the Argo CD DeploymentEngine adapter (ENG-1..4, STYLE R12).
//
// It writes one Argo CD Application per plan release in the engine namespace
// and AppProject from configuration, and maps Argo CD's sync, health and
// operation state onto the engine-neutral ports.ReleaseStatus. The typed Argo
// CD API (github.com/argoproj/argo-cd/v3, package
// pkg/apis/application/v1alpha1) never leaves this package: callers see only
// ports types, client.Object values and plain strings.
//
// Ownership: every Application the engine writes carries the operator's labels
// (LabelManagedBy, LabelRuntimeUID) and annotations (runtime UID, plan digest,
// release, rollout and the plan graph). Only an Application whose annotation
// records the caller's runtime UID is ever modified; anything else in the way
// is reported as ports.ErrForeignObject and left untouched.
//
// The Argo CD cascade finalizer (resources-finalizer.argocd.argoproj.io) is
// added by Remove alone, immediately before the delete, so Argo CD removes the
// release's live objects; Apply strips it from an Application it owns (ENG-3).
package argocd
