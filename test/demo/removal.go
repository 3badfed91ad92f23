package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
)

// resourcesFinalizer is Argo CD's finalizer that makes deleting an Application delete its
// resources; without it Argo CD leaves them in the cluster.
const resourcesFinalizer = "resources-finalizer.argocd.argoproj.io"

// removalWatch observes the Application of a release a rollout removes, from before its Remove
// step until Argo CD deleted it: when the resources finalizer appeared and who set it, when the
// Application was deleted, and when the release's live objects went.
type removalWatch struct {
	app    client.ObjectKey
	cancel context.CancelFunc
	done   chan struct{}

	mu sync.Mutex
	// finalizerBefore: the Application carried the finalizer when the watch began (before the step).
	finalizerBefore bool
	// finalizerBy is the field manager that set the finalizer.
	finalizerBy                         string
	start, finalizerAt, deletedAt, gone time.Time
	objectsAtFinalizer, objectsAtGone   int
	err                                 error
}

// watchRemoval starts watching the release the current rollout removes.
func (d *demo) watchRemoval(ctx context.Context) (*removalWatch, error) {
	var cr aicrv1alpha1.ClusterRuntime
	if err := d.admin.Get(ctx, client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, &cr); err != nil {
		return nil, err
	}
	var ro aicrv1alpha1.RuntimeRollout
	if err := d.admin.Get(ctx, client.ObjectKey{Name: cr.Status.Rollout}, &ro); err != nil {
		return nil, err
	}
	i := slices.IndexFunc(ro.Spec.Steps, func(s aicrv1alpha1.Step) bool { return s.Operation == aicrv1alpha1.OperationRemove })
	if i < 0 {
		return nil, fmt.Errorf("rollout %s removes no release", ro.Name)
	}
	release := ro.Spec.Steps[i].Release
	w := &removalWatch{done: make(chan struct{}), start: time.Now()}
	apps, err := d.applications(ctx)
	if err != nil {
		return nil, err
	}
	for _, app := range apps {
		if name, _, _ := unstructured.NestedString(app.Object, "spec", "source", "helm", "releaseName"); name == release {
			w.app = client.ObjectKeyFromObject(&app)
			w.finalizerBefore = slices.Contains(app.GetFinalizers(), resourcesFinalizer)
		}
	}
	if w.app.Name == "" {
		return nil, fmt.Errorf("no Application of the removed release %s", release)
	}
	wc, err := client.NewWithWatch(d.cp.Config, client.Options{})
	if err != nil {
		return nil, err
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(applicationGVK.GroupVersion().WithKind("ApplicationList"))
	var watchCtx context.Context
	watchCtx, w.cancel = context.WithCancel(ctx)
	events, err := wc.Watch(watchCtx, list, client.InNamespace(w.app.Namespace), client.MatchingFields{"metadata.name": w.app.Name})
	if err != nil {
		w.cancel()
		return nil, fmt.Errorf("watch Application %s: %w", w.app, err)
	}
	go func() {
		defer close(w.done)
		defer events.Stop()
		for ev := range events.ResultChan() {
			app, ok := ev.Object.(*unstructured.Unstructured)
			if !ok {
				continue
			}
			if finished, err := w.observe(watchCtx, d, app, ev.Type == watch.Deleted); finished || err != nil {
				w.mu.Lock()
				w.err = err
				w.mu.Unlock()
				return
			}
		}
	}()
	return w, nil
}

// observe records one event of the Application with the number of the release's live objects
// at that moment; it reports finished once the Application is gone.
func (w *removalWatch) observe(ctx context.Context, d *demo, app *unstructured.Unstructured, deleted bool) (bool, error) {
	objects, err := d.releaseObjects(ctx, w.app.Name)
	if err != nil {
		return false, err
	}
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if slices.Contains(app.GetFinalizers(), resourcesFinalizer) && w.finalizerAt.IsZero() {
		w.finalizerAt, w.finalizerBy, w.objectsAtFinalizer = now, finalizerManager(app), objects
	}
	if app.GetDeletionTimestamp() != nil && w.deletedAt.IsZero() {
		w.deletedAt = now
	}
	if deleted {
		w.gone, w.objectsAtGone = now, objects
	}
	return deleted, nil
}

// finalizerManager is the field manager that owns the Application's finalizers.
func finalizerManager(app *unstructured.Unstructured) string {
	for _, mf := range app.GetManagedFields() {
		if mf.FieldsV1 != nil && strings.Contains(mf.FieldsV1.GetRawString(), `"f:finalizers"`) {
			return mf.Manager
		}
	}
	return "unknown"
}

// releaseObjects counts the live objects of the stand-in chart in the Application's release
// namespace (<namespace>.<release>).
func (d *demo) releaseObjects(ctx context.Context, app string) (int, error) {
	namespace, release, _ := strings.Cut(app, ".")
	opts := []client.ListOption{client.InNamespace(namespace), client.MatchingLabels{"app.kubernetes.io/instance": release}}
	var deps appsv1.DeploymentList
	if err := d.admin.List(ctx, &deps, opts...); err != nil {
		return 0, err
	}
	var cms corev1.ConfigMapList
	if err := d.admin.List(ctx, &cms, opts...); err != nil {
		return 0, err
	}
	return len(deps.Items) + len(cms.Items), nil
}

// stop ends the watch.
func (w *removalWatch) stop() {
	w.cancel()
	<-w.done
}

// report waits until the Application is gone and prints what the watch saw, and which Applications carry the resources
// finalizer now: a Remove step sets it, so none should, and deleting any of them would leave
// the release's resources alone.
func (w *removalWatch) report(ctx context.Context, d *demo) error {
	select {
	case <-w.done:
	case <-ctx.Done():
		return fmt.Errorf("waiting for the removal of %s: %w", w.app, ctx.Err())
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return fmt.Errorf("watching the removal of %s: %w", w.app, w.err)
	}
	if w.gone.IsZero() || w.finalizerAt.IsZero() || w.deletedAt.IsZero() {
		return fmt.Errorf("the Application %s was not removed with the resources finalizer (finalizer seen: %v, deleted: %v, gone: %v)",
			w.app, !w.finalizerAt.IsZero(), !w.deletedAt.IsZero(), !w.gone.IsZero())
	}
	since := func(t time.Time) string { return "+" + t.Sub(w.start).Round(100*time.Millisecond).String() }
	console.printf("    Remove %s: resources finalizer before the step: %v; set by %s at %s with %d live objects of the release, "+
		"Application deleted at %s; Argo CD removed it at %s with %d left\n",
		w.app, w.finalizerBefore, w.finalizerBy, since(w.finalizerAt), w.objectsAtFinalizer, since(w.deletedAt), since(w.gone), w.objectsAtGone)
	apps, err := d.applications(ctx)
	if err != nil {
		return err
	}
	var with []string
	for _, app := range apps {
		if slices.Contains(app.GetFinalizers(), resourcesFinalizer) {
			with = append(with, app.GetName())
		}
	}
	if len(with) == 0 {
		with = []string{"none"}
	}
	console.printf("    Applications carrying the resources finalizer outside a Remove step: %s\n", strings.Join(with, ", "))
	return nil
}

// applications lists the Argo CD Applications in the engine namespace.
func (d *demo) applications(ctx context.Context) ([]unstructured.Unstructured, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(applicationGVK.GroupVersion().WithKind("ApplicationList"))
	if err := d.admin.List(ctx, list, client.InNamespace(d.argo.ArgoCDNamespace)); err != nil {
		return nil, fmt.Errorf("list Applications: %w", err)
	}
	return list.Items, nil
}
