// Package argocd is the Argo CD DeploymentEngine adapter (ENG-1..4).
//
// It writes one Argo CD Application per plan release in the engine namespace
// and AppProject from configuration, and maps Argo CD's sync, health and
// operation state onto the engine-neutral ports.ReleaseStatus. The typed Argo
// CD API is the operator's own wire-compatible subset in api/v1alpha1 (the
// argo-cd module is a test-only dependency that proves the compatibility); it
// never leaves this package: callers see only ports types, client.Object
// values and plain strings. Every write of an existing Application is a merge
// patch of the fields the engine changed, so the fields those types do not
// model are kept, except inside spec.source, spec.destination and
// spec.syncPolicy: the engine owns those whole, and Apply removes a Helm
// parameter, values file, second destination or sync retry it did not write.
//
// A rollout other than the one that last wrote an Application whose last sync
// failed requests a sync operation in its write: Argo CD's automated sync
// never runs again for an unchanged source whose last attempt failed.
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
