package argocd

import (
	"context"
	"errors"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/ports"
)

// get reads the Application of ref; a missing one is ErrTargetNotFound.
func (e *Engine) get(ctx context.Context, ref ports.ReleaseRef) (*argov1.Application, error) {
	app := &argov1.Application{}
	err := e.c.Get(ctx, e.key(ref), app)
	if apierrors.IsNotFound(err) && !isMissingResource(err) {
		return nil, fmt.Errorf("application %s/%s: %w", e.cfg.Namespace, ApplicationName(ref), ports.ErrTargetNotFound)
	}
	return app, err
}

// Adopt moves the Application of ref from previousRuntimeUID to owner,
// leaving chart, values and policy unchanged. Repeating it is a no-op.
func (e *Engine) Adopt(ctx context.Context, ref ports.ReleaseRef, previousRuntimeUID string, owner ports.ReleaseOwner) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		app, err := e.get(ctx, ref)
		if err != nil {
			return err
		}
		if ownedBy(app, ref, owner.RuntimeUID) != nil {
			if err := ownedBy(app, ref, previousRuntimeUID); err != nil {
				return err
			}
		}
		return e.updateIfChanged(ctx, app, func(a *argov1.Application) error {
			setOwner(a, ref, owner)
			return nil
		})
	})
	return wrap("adopt "+ref.String(), err)
}

// Remove deletes the Application of ref with Argo CD's cascade: it adds
// resources-finalizer.argocd.argoproj.io (the only place the engine ever
// does, ENG-3) and deletes the Application, so Argo CD deletes the release's
// live objects before the Application goes away. A missing Application is
// success; one being deleted already is left to Argo CD.
func (e *Engine) Remove(ctx context.Context, ref ports.ReleaseRef, owner ports.ReleaseOwner) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		app, err := e.get(ctx, ref)
		if err != nil {
			return err
		}
		if err := ownedBy(app, ref, owner.RuntimeUID); err != nil {
			return err
		}
		if app.DeletionTimestamp != nil {
			return nil
		}
		if !slices.Contains(app.Finalizers, argov1.ResourcesFinalizerName) {
			original := app.DeepCopy()
			app.Finalizers = append(app.Finalizers, argov1.ResourcesFinalizerName)
			if err := e.patchOwned(ctx, original, app); err != nil {
				return err
			}
		}
		uid, version := app.UID, app.ResourceVersion
		return e.c.Delete(ctx, app, client.Preconditions{UID: &uid, ResourceVersion: &version})
	})
	if err == nil || isNotFound(err) || errors.Is(err, ports.ErrTargetNotFound) {
		return nil
	}
	return wrap("remove "+ref.String(), err)
}

// Suspend turns automated sync of ref off (suspend true) or back on. It is
// refused with ErrSuspensionRefused while a sync operation runs. It mutates
// only an Application whose runtime UID annotation is owner's (ENG-2).
func (e *Engine) Suspend(ctx context.Context, ref ports.ReleaseRef, owner ports.ReleaseOwner, suspend bool) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		app, err := e.get(ctx, ref)
		if err != nil {
			return err
		}
		if err := ownedBy(app, ref, owner.RuntimeUID); err != nil {
			return err
		}
		if suspend && suspended(app) == suspend {
			return nil
		}
		if suspend && operationOf(app) == ports.OperationRunning {
			return fmt.Errorf("application %s/%s is syncing: %w", app.Namespace, app.Name, ports.ErrSuspensionRefused)
		}
		return e.updateIfChanged(ctx, app, func(a *argov1.Application) error {
			if a.Spec.SyncPolicy == nil || a.Spec.SyncPolicy.Automated == nil {
				a.Spec.SyncPolicy = syncPolicy(ports.EnginePolicy{}, suspend)
				return nil
			}
			a.Spec.SyncPolicy.Automated.Enabled = nil
			if suspend {
				off := false
				a.Spec.SyncPolicy.Automated.Enabled = &off
			}
			return nil
		})
	})
	return wrap(fmt.Sprintf("suspend %s (%t)", ref, suspend), err)
}

// isNotFound reports a 404 about the Application itself (deleted meanwhile).
func isNotFound(err error) bool {
	return apierrors.IsNotFound(err) && !isMissingResource(err)
}
