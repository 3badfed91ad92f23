package argocd

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/chartref"
	"github.com/NVIDIA/aicr/adapters/kube/wellknown"
	"github.com/NVIDIA/aicr/ports"
)

// Argo CD sync options written from the EnginePolicy (FORMAT.md section 5.1).
const (
	syncOptionCreateNamespace = "CreateNamespace=true"
	syncOptionServerSideApply = "ServerSideApply=true"
)

// Apply creates or updates the Application of spec.Ref (ENG-1, ENG-2). It
// writes only when something the engine owns differs, so a repeated call
// makes no write. An existing Application that does not record
// spec.Owner.RuntimeUID is never modified: ErrForeignObject. Apply writes
// automated sync enabled, so applying a suspended release resumes it, and a
// rollout that applies a release whose last sync failed requests a sync
// operation in the same write (retriesFailedSync).
func (e *Engine) Apply(ctx context.Context, spec ports.ReleaseSpec) error {
	if _, err := chartref.For(e.cfg.Registry, spec); err != nil {
		return fmt.Errorf("apply %s: %w", spec.Ref, err)
	}
	err := retry.OnError(retry.DefaultRetry, retriable, func() error {
		app := &argov1.Application{}
		err := e.c.Get(ctx, e.key(spec.Ref), app)
		if apierrors.IsNotFound(err) && !isMissingResource(err) {
			app.Name, app.Namespace = ApplicationName(spec.Ref), e.cfg.Namespace
			if fillErr := e.fill(app, spec); fillErr != nil {
				return fillErr
			}
			return e.c.Create(ctx, app, client.FieldOwner(FieldManager))
		}
		if err != nil {
			return err
		}
		if err := ownedBy(app, spec.Ref, spec.Owner.RuntimeUID); err != nil {
			return err
		}
		if app.DeletionTimestamp != nil {
			return fmt.Errorf("application %s/%s is being deleted", app.Namespace, app.Name)
		}
		return e.updateIfChanged(ctx, app, func(a *argov1.Application) error {
			again := retriesFailedSync(a, spec.Owner.Rollout)
			if err := e.fill(a, spec); err != nil {
				return err
			}
			if again {
				a.Operation = syncOperation(a.Spec.SyncPolicy)
			}
			return nil
		})
	})
	return wrap("apply "+spec.Ref.String(), err)
}

// OperationInitiator is the user name of the sync operations the engine requests.
const OperationInitiator = "aicr-operator"

// retriesFailedSync reports whether applying for rollout retries app's failed sync: another
// rollout than the one that last wrote app asks for it, and app's last operation failed and no
// other is pending. Argo CD's automated sync never runs again for a source and revision whose
// last attempt failed ("Skipping auto-sync: failed previous sync attempt"), so a retry that
// only rewrote the rollout annotation would wait for a sync that never comes.
func retriesFailedSync(app *argov1.Application, rollout string) bool {
	op := app.Status.OperationState
	return rollout != "" && app.Annotations[AnnotationRollout] != rollout && app.Operation == nil &&
		op != nil && op.FinishedAt != nil && (op.Phase == "Failed" || op.Phase == "Error")
}

// syncRetryLimit is how often Argo CD's automated sync attempts a failed sync again.
const syncRetryLimit = 5

// syncOperation is the sync the engine requests, as Argo CD's automated sync would start it:
// the spec's target revision, with the sync policy's pruning and options and the same retries.
func syncOperation(p *argov1.SyncPolicy) *argov1.Operation {
	return &argov1.Operation{
		Sync:        &argov1.SyncOperation{Prune: p.Automated.Prune, SyncOptions: p.SyncOptions},
		InitiatedBy: argov1.OperationInitiator{Username: OperationInitiator},
		Retry:       argov1.RetryStrategy{Limit: syncRetryLimit},
	}
}

// retriable reports the errors of a lost race: the object changed or appeared
// between read and write; the next attempt reads it again.
func retriable(err error) bool {
	return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err)
}

// updateIfChanged applies mutate to app and writes it only when the
// canonical encoding changed, with patchOwned.
func (e *Engine) updateIfChanged(ctx context.Context, app *argov1.Application, mutate func(*argov1.Application) error) error {
	original := app.DeepCopy()
	before, err := canonical(original)
	if err != nil {
		return err
	}
	if mutateErr := mutate(app); mutateErr != nil {
		return mutateErr
	}
	after, err := canonical(app)
	if err != nil {
		return err
	}
	if before == after {
		return nil
	}
	return e.patchOwned(ctx, original, app)
}

// patchOwned writes the changes from original to app as a JSON merge patch
// guarded by original's resourceVersion (a conflict is retried by the
// caller). The API types model only the fields the engine reads or writes,
// so an update of the whole object would drop every other field Argo CD or
// a user set, status included (the Application has no status subresource);
// the patch names only the fields that changed and leaves the rest alone.
func (e *Engine) patchOwned(ctx context.Context, original, app *argov1.Application) error {
	return e.c.Patch(ctx, app, client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{}),
		client.FieldOwner(FieldManager))
}

// fill writes everything the engine owns on app from spec; it leaves other
// labels, annotations, finalizers and spec fields alone.
func (e *Engine) fill(app *argov1.Application, spec ports.ReleaseSpec) error {
	setOwner(app, spec.Ref, spec.Owner)
	graph, err := json.Marshal(nonNil(spec.DependsOn))
	if err != nil {
		return fmt.Errorf("encode plan graph: %w", err)
	}
	app.Annotations[wellknown.AnnotationPlanGraph] = string(graph)
	if err = recordSpec(app, spec); err != nil {
		return err
	}
	app.Finalizers = slices.DeleteFunc(app.Finalizers, func(f string) bool { return f == argov1.ResourcesFinalizerName })
	if len(app.Finalizers) == 0 {
		app.Finalizers = nil
	}

	// A native OCI Helm source (Argo CD 3.1+): the chart's repository in the runtime registry,
	// pinned by manifest digest, rendered from the artifact's root (ENG-1, PLAN-3).
	pinned, err := chartref.For(e.cfg.Registry, spec)
	if err != nil {
		return err
	}
	source := &argov1.ApplicationSource{
		RepoURL:        pinned.RepoURL,
		Path:           ".",
		TargetRevision: pinned.TargetRevision,
		Helm:           &argov1.ApplicationSourceHelm{ReleaseName: spec.Ref.ID},
	}
	if err := setValues(source.Helm, spec.Values); err != nil {
		return err
	}
	app.Spec.Project = e.cfg.Project
	app.Spec.Source, app.Spec.Sources = source, nil
	app.Spec.Destination = argov1.ApplicationDestination{Server: InClusterServer, Namespace: spec.Ref.Namespace}
	app.Spec.SyncPolicy = syncPolicy(spec.Policy, false)
	return nil
}

// setOwner records the operator's labels and ownership annotations (ENG-2).
func setOwner(app *argov1.Application, ref ports.ReleaseRef, owner ports.ReleaseOwner) {
	if app.Labels == nil {
		app.Labels = map[string]string{}
	}
	if app.Annotations == nil {
		app.Annotations = map[string]string{}
	}
	app.Labels[wellknown.LabelManagedBy] = wellknown.ManagedByValue
	app.Labels[wellknown.LabelRuntimeUID] = owner.RuntimeUID
	app.Annotations[wellknown.AnnotationRuntimeUID] = owner.RuntimeUID
	app.Annotations[wellknown.AnnotationPlanDigest] = owner.PlanDigest
	app.Annotations[wellknown.AnnotationRelease] = ref.ID
	if owner.Rollout == "" {
		delete(app.Annotations, AnnotationRollout)
	} else {
		app.Annotations[AnnotationRollout] = owner.Rollout
	}
}

// syncPolicy returns automated sync (prune, self-heal) with the policy's sync
// options; suspended turns the automation off but keeps its settings.
func syncPolicy(p ports.EnginePolicy, suspended bool) *argov1.SyncPolicy {
	sp := &argov1.SyncPolicy{Automated: &argov1.SyncPolicyAutomated{Prune: true, SelfHeal: true}}
	if suspended {
		off := false
		sp.Automated.Enabled = &off
	}
	if p.CreateNamespace {
		sp.SyncOptions = append(sp.SyncOptions, syncOptionCreateNamespace)
	}
	if p.ServerSideApply {
		sp.SyncOptions = append(sp.SyncOptions, syncOptionServerSideApply)
	}
	return sp
}

// ownedBy returns ErrForeignObject unless app records runtimeUID (ENG-2): a
// label match alone never authorises a mutation.
func ownedBy(app *argov1.Application, ref ports.ReleaseRef, runtimeUID string) error {
	recorded := app.Annotations[wellknown.AnnotationRuntimeUID]
	if runtimeUID == "" || recorded != runtimeUID {
		return fmt.Errorf("application %s/%s for %s records runtime UID %q: %w",
			app.Namespace, app.Name, ref, recorded, ports.ErrForeignObject)
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
