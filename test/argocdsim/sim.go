package argocdsim

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/NVIDIA/aicr/adapters/argocd"
	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/ports"
)

// Mode is how the simulated Argo CD settles one Application.
type Mode string

const (
	// Healthy means the sync succeeded, the release is Synced and Healthy.
	Healthy Mode = "Healthy"
	// Degraded means the sync succeeded but a workload failed (health Degraded).
	Degraded Mode = "Degraded"
	// Progressing means the sync succeeded but workloads never become ready, so
	// the step runs into its action timeout.
	Progressing Mode = "Progressing"
	// OutOfSync means the sync succeeded but the live state drifted right after.
	OutOfSync Mode = "OutOfSync"
	// SyncFailed means the sync operation failed.
	SyncFailed Mode = "SyncFailed"
	// Syncing means a sync operation started and keeps running.
	Syncing Mode = "Syncing"
)

// FailureMessage is the operation message of SyncFailed and the health
// message of Degraded.
const FailureMessage = "simulated failure"

// Sim plays Argo CD's application controller for the Applications of one
// engine namespace. It is safe for concurrent use.
type Sim struct {
	c         client.Client
	clock     ports.Clock
	namespace string
	mu        sync.Mutex
	modes     map[string]Mode
	fallback  Mode
}

// New returns a simulator writing through c (whose scheme includes
// argocd.AddToScheme) for Applications in namespace, stamping times from clock.
func New(c client.Client, namespace string, clock ports.Clock) *Sim {
	return &Sim{c: c, clock: clock, namespace: namespace, modes: map[string]Mode{}, fallback: Healthy}
}

// SetDefault sets the mode of every Application without its own mode.
func (s *Sim) SetDefault(m Mode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fallback = m
}

// SetMode sets the mode of the Application of ref.
func (s *Sim) SetMode(ref ports.ReleaseRef, m Mode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.modes[argocd.ApplicationName(ref)] = m
}

func (s *Sim) mode(name string) Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.modes[name]; ok {
		return m
	}
	return s.fallback
}

// Settle writes the status of the Application of ref for its mode, as Argo
// CD would after reconciling its current spec. It writes nothing when the
// status already says so (it reports whether it wrote).
func (s *Sim) Settle(ctx context.Context, ref ports.ReleaseRef) (bool, error) {
	return s.settle(ctx, argocd.ApplicationName(ref))
}

// SettleAll settles every Application of the namespace and returns how many
// it wrote.
func (s *Sim) SettleAll(ctx context.Context) (int, error) {
	var apps argov1.ApplicationList
	if err := s.c.List(ctx, &apps, client.InNamespace(s.namespace)); err != nil {
		return 0, fmt.Errorf("list applications: %w", err)
	}
	written := 0
	for _, app := range apps.Items {
		wrote, err := s.settle(ctx, app.Name)
		if err != nil {
			return written, err
		}
		if wrote {
			written++
		}
	}
	return written, nil
}

func (s *Sim) settle(ctx context.Context, name string) (bool, error) {
	wrote := false
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		wrote = false
		app := &argov1.Application{}
		if err := s.c.Get(ctx, client.ObjectKey{Namespace: s.namespace, Name: name}, app); err != nil {
			return err
		}
		if app.DeletionTimestamp != nil {
			return s.finish(ctx, app, &wrote)
		}
		if app.Spec.Source == nil {
			return nil
		}
		want := s.status(app, s.mode(name))
		original := app.DeepCopy()
		switch {
		case app.Operation != nil:
			// A requested operation runs; Argo CD records it as requested and clears the request.
			want.OperationState.Operation, app.Operation = *app.Operation, nil
		case failedAttempt(app):
			return nil
		case settled(app.Status, want):
			return nil
		}
		app.Status = want
		wrote = true
		return s.patch(ctx, original, app)
	})
	if err != nil {
		return false, fmt.Errorf("settle application %s/%s: %w", s.namespace, name, err)
	}
	return wrote, nil
}

// FinishDeletion completes the cascade of an Application being deleted: Argo
// CD deleted the live objects, so it drops its resources finalizer.
func (s *Sim) FinishDeletion(ctx context.Context, ref ports.ReleaseRef) error {
	_, err := s.settle(ctx, argocd.ApplicationName(ref))
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

func (s *Sim) finish(ctx context.Context, app *argov1.Application, wrote *bool) error {
	if !slices.Contains(app.Finalizers, argov1.ResourcesFinalizerName) {
		return nil
	}
	original := app.DeepCopy()
	app.Finalizers = slices.DeleteFunc(app.Finalizers, func(f string) bool { return f == argov1.ResourcesFinalizerName })
	*wrote = true
	return s.patch(ctx, original, app)
}

// patch writes the changes from original to app as a merge patch guarded by
// original's resourceVersion, as Argo CD does: the API types model only some
// fields, so an update of the whole object would drop the others.
func (s *Sim) patch(ctx context.Context, original, app *argov1.Application) error {
	return s.c.Patch(ctx, app, client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{}))
}

// Reconcile settles the Application of req (controller-runtime reconciler).
func (s *Sim) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	if req.Namespace != s.namespace {
		return reconcile.Result{}, nil
	}
	_, err := s.settle(ctx, req.Name)
	return reconcile.Result{}, client.IgnoreNotFound(err)
}

// SetupWithManager makes the simulator settle every Application event of mgr.
func (s *Sim) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).Named("argocdsim").For(&argov1.Application{}).Complete(s)
}

// failedAttempt reports whether Argo CD's automated sync skips app: its last sync, of the
// source and revision the spec still names, failed ("Skipping auto-sync: failed previous sync
// attempt"), so only a change of the spec or a requested operation syncs it again.
func failedAttempt(app *argov1.Application) bool {
	op := app.Status.OperationState
	return op != nil && (op.Phase == "Failed" || op.Phase == "Error") && app.Status.Sync.Revision == app.Spec.Source.TargetRevision &&
		equality.Semantic.DeepEqual(app.Status.Sync.ComparedTo.Source, *app.Spec.Source)
}

// settled reports whether have already shows what want shows, ignoring times and who requested
// the last operation.
func settled(have, want argov1.ApplicationStatus) bool {
	have.ReconciledAt, want.ReconciledAt = nil, nil
	if have.OperationState != nil && want.OperationState != nil {
		h, w := *have.OperationState, *want.OperationState
		h.StartedAt, w.StartedAt, h.FinishedAt, w.FinishedAt = metav1.Time{}, metav1.Time{}, nil, nil
		h.Operation, w.Operation = argov1.Operation{}, argov1.Operation{}
		have.OperationState, want.OperationState = &h, &w
	}
	return equality.Semantic.DeepEqual(have, want)
}

// CascadeGuarded reports whether the Application of ref carries Argo CD's
// resources finalizer; false when it does not exist.
func (s *Sim) CascadeGuarded(ctx context.Context, ref ports.ReleaseRef) (bool, error) {
	app := &argov1.Application{}
	err := s.c.Get(ctx, client.ObjectKey{Namespace: s.namespace, Name: argocd.ApplicationName(ref)}, app)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read application of %s: %w", ref, err)
	}
	return slices.Contains(app.Finalizers, argov1.ResourcesFinalizerName), nil
}
