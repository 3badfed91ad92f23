package argocd

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"

	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/wellknown"
	"github.com/NVIDIA/aicr/ports"
)

// Status returns Argo CD's view of ref; ErrTargetNotFound when the
// Application does not exist. It never mutates.
func (e *Engine) Status(ctx context.Context, ref ports.ReleaseRef) (ports.ReleaseStatus, error) {
	app, err := e.get(ctx, ref)
	if err != nil {
		return ports.ReleaseStatus{}, wrap("status of "+ref.String(), err)
	}
	return observeWith(app, e.revisions.of(app)), nil
}

// List returns the status of every Application carrying the operator's
// managed-by label in the engine namespace, whatever runtime UID it records,
// sorted by namespace and ID.
func (e *Engine) List(ctx context.Context) ([]ports.ReleaseStatus, error) {
	var apps argov1.ApplicationList
	// Observing only reads: the cache's own objects, not copies of every Application.
	err := e.c.List(ctx, &apps, client.InNamespace(e.cfg.Namespace),
		client.MatchingLabels{wellknown.LabelManagedBy: wellknown.ManagedByValue}, client.UnsafeDisableDeepCopy)
	if err != nil {
		return nil, wrap("list applications", err)
	}
	out := make([]ports.ReleaseStatus, 0, len(apps.Items))
	for i := range apps.Items {
		out = append(out, observeWith(&apps.Items[i], e.revisions.of(&apps.Items[i])))
	}
	e.revisions.keep(apps.Items)
	slices.SortFunc(out, func(a, b ports.ReleaseStatus) int {
		return cmp.Or(cmp.Compare(a.Ref.Namespace, b.Ref.Namespace), cmp.Compare(a.Ref.ID, b.Ref.ID))
	})
	return out, nil
}

// observe maps one Application onto the engine-neutral status. It is the only
// place Argo CD's sync, health and operation strings are interpreted; strings
// it does not know map to HealthUnknown / not synced, never to a panic.
//
// DesiredRevision fingerprints the source and destination the spec asks for;
// SyncedRevision fingerprints what Argo CD last compared the live state to,
// and is set only while Argo CD reports Synced and its last operation (if
// any) succeeded. The release is synced to the plan's revision only when
// Argo CD reconciled the current spec after it was written.
func observe(app *argov1.Application) ports.ReleaseStatus {
	return observeWith(app, revisionsOf(app))
}

// observeWith is observe with the Application's revisions already computed (revisionMemo).
func observeWith(app *argov1.Application, revs revisions) ports.ReleaseStatus {
	st := ports.ReleaseStatus{
		Ref:       ports.ReleaseRef{ID: app.Annotations[wellknown.AnnotationRelease], Namespace: app.Spec.Destination.Namespace},
		Owner:     ownerOf(app),
		Health:    healthOf(string(app.Status.Health.Status)),
		Operation: operationOf(app),
		Suspended: suspended(app),
		Removing:  app.DeletionTimestamp != nil || slices.Contains(app.Finalizers, argov1.ResourcesFinalizerName),
		Message:   detail(app),
		Object:    "Application " + app.Namespace + "/" + app.Name,
	}
	if st.Ref.ID == "" && app.Spec.Source != nil && app.Spec.Source.Helm != nil {
		st.Ref.ID = app.Spec.Source.Helm.ReleaseName
	}
	st.DesiredRevision, st.SpecDigest = revs.desired, revs.spec
	if op := app.Status.OperationState; op != nil {
		st.LastSyncAt = op.StartedAt.Time
		// A failed or running operation explains the state; a succeeded one ("successfully
		// synced") says nothing about a release that is not healthy.
		if st.Operation == ports.OperationFailed || (st.Message == "" && st.Operation != ports.OperationSucceeded) {
			st.Message = op.Message
		}
	}
	if app.Status.Sync.Status == argov1.SyncStatusCodeSynced && st.Operation != ports.OperationFailed &&
		st.Operation != ports.OperationRunning {
		st.SyncedRevision = revs.compared
	}
	return st
}

// healthOf maps Argo CD's health status code.
func healthOf(code string) ports.Health {
	switch code {
	case "Healthy":
		return ports.HealthHealthy
	case "Progressing":
		return ports.HealthProgressing
	case "Degraded":
		return ports.HealthDegraded
	case "Suspended":
		return ports.HealthSuspended
	case "Missing":
		return ports.HealthMissing
	}
	return ports.HealthUnknown
}

// operationOf maps the operation Argo CD runs or last ran. A requested
// operation not yet started counts as running; an unknown phase is reported
// as running too, so it is neither taken for success nor for failure.
func operationOf(app *argov1.Application) ports.OperationState {
	if app.Operation != nil {
		return ports.OperationRunning
	}
	if app.Status.OperationState == nil {
		return ports.OperationNone
	}
	switch string(app.Status.OperationState.Phase) {
	case "Succeeded":
		return ports.OperationSucceeded
	case "Failed", "Error":
		return ports.OperationFailed
	}
	return ports.OperationRunning
}

// detail returns Argo CD's most useful message: the first application
// condition (a comparison or sync error), else the health message of the
// first resource that is not healthy.
func detail(app *argov1.Application) string {
	for _, c := range app.Status.Conditions {
		if c.Message != "" {
			return c.Message
		}
	}
	for _, r := range app.Status.Resources {
		if r.Health != nil && r.Health.Message != "" && string(r.Health.Status) != "Healthy" {
			return r.Kind + " " + r.Namespace + "/" + r.Name + ": " + r.Health.Message
		}
	}
	if app.Status.Health.Status == "Degraded" {
		// Argo CD v3 keeps resource health out of the Application by default
		// (controller.resource.health.persist is false): say where to find it.
		return "a resource of the release is Degraded: argocd app get " + app.Namespace + "/" + app.Name + " shows which"
	}
	return ""
}

// suspended reports whether automated sync is off.
func suspended(app *argov1.Application) bool {
	sp := app.Spec.SyncPolicy
	if sp == nil || sp.Automated == nil {
		return true
	}
	return sp.Automated.Enabled != nil && !*sp.Automated.Enabled
}

// revision fingerprints a source and destination namespace: the
// targetRevision (the chart's manifest digest) plus a hash of their canonical
// encoding, so a values or namespace change is a new revision too. The
// destination server is left out: Argo CD may record it as a name instead.
func revision(source argov1.ApplicationSource, dest argov1.ApplicationDestination) string {
	if source.RepoURL == "" && source.Chart == "" {
		return ""
	}
	encoded, err := canonical(struct {
		Source    argov1.ApplicationSource `json:"source"`
		Namespace string                   `json:"namespace"`
	}{source, dest.Namespace})
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(encoded))
	return source.TargetRevision + "+" + hex.EncodeToString(sum[:8])
}
