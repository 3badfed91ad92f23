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
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// resourcesFinalizer is Argo CD's finalizer that makes deleting an Application delete its
// resources; without it Argo CD leaves them in the cluster.
const resourcesFinalizer = "resources-finalizer.argocd.argoproj.io"

// removalWatch observes the Application of a release a rollout removes, and the release's live
// objects, from before its Remove step until Argo CD deleted the Application: when the resources
// finalizer appeared and who set it, when the Application was deleted, and when each of the
// release's objects was marked for deletion. The watches only record when they see an event, so
// one stream never waits on another's reads.
type removalWatch struct {
	app    client.ObjectKey
	cancel context.CancelFunc
	// done closes when the Application's watch ends; watches counts every watch goroutine.
	done    chan struct{}
	watches sync.WaitGroup

	mu sync.Mutex
	// finalizerBefore: the Application carried the finalizer when the watch began (before the step).
	finalizerBefore bool
	// finalizerBy is the field manager that set the finalizer.
	finalizerBy                         string
	start, finalizerAt, deletedAt, gone time.Time
	// objects holds the release's objects live when the watch began, each with when the watch
	// saw it marked for deletion or deleted (zero while it is live).
	objects       map[string]time.Time
	objectsAtGone int
	err           error
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
	w := &removalWatch{done: make(chan struct{}), start: time.Now(), objects: map[string]time.Time{}}
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
	var watchCtx context.Context
	watchCtx, w.cancel = context.WithCancel(ctx)
	namespace, name, _ := strings.Cut(w.app.Name, ".")
	inRelease := []client.ListOption{client.InNamespace(namespace), client.MatchingLabels{"app.kubernetes.io/instance": name}}
	for _, list := range []client.ObjectList{&appsv1.DeploymentList{}, &corev1.ConfigMapList{}} {
		if err := w.watchObjects(watchCtx, wc, list, inRelease...); err != nil {
			w.stop()
			return nil, err
		}
	}
	if err := w.watchApplication(watchCtx, d, wc); err != nil {
		w.stop()
		return nil, err
	}
	return w, nil
}

// watchObjects lists the release's objects of one kind and watches them from that list on,
// recording when each is marked for deletion or deleted.
func (w *removalWatch) watchObjects(ctx context.Context, wc client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
	if err := wc.List(ctx, list, opts...); err != nil {
		return fmt.Errorf("list the removed release's objects: %w", err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return err
	}
	kind := fmt.Sprintf("%T", list)
	w.mu.Lock()
	for _, item := range items {
		if obj, ok := item.(client.Object); ok && obj.GetDeletionTimestamp() == nil {
			w.objects[kind+"/"+obj.GetName()] = time.Time{}
		}
	}
	w.mu.Unlock()
	fromList := &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: list.GetResourceVersion()}}
	events, err := wc.Watch(ctx, list, append(opts, fromList)...)
	if err != nil {
		return fmt.Errorf("watch the removed release's objects: %w", err)
	}
	w.watches.Go(func() {
		defer events.Stop()
		for ev := range events.ResultChan() {
			obj, ok := ev.Object.(client.Object)
			if !ok || (ev.Type != watch.Deleted && obj.GetDeletionTimestamp() == nil) {
				continue
			}
			now, key := time.Now(), kind+"/"+obj.GetName()
			w.mu.Lock()
			if at, live := w.objects[key]; live && at.IsZero() {
				w.objects[key] = now
			}
			w.mu.Unlock()
		}
	})
	return nil
}

// watchApplication watches the removed release's Application until it is gone.
func (w *removalWatch) watchApplication(ctx context.Context, d *demo, wc client.WithWatch) error {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(applicationGVK.GroupVersion().WithKind("ApplicationList"))
	events, err := wc.Watch(ctx, list, client.InNamespace(w.app.Namespace), client.MatchingFields{"metadata.name": w.app.Name})
	if err != nil {
		return fmt.Errorf("watch Application %s: %w", w.app, err)
	}
	w.watches.Go(func() {
		defer close(w.done)
		defer events.Stop()
		for ev := range events.ResultChan() {
			app, ok := ev.Object.(*unstructured.Unstructured)
			if !ok {
				continue
			}
			if ev.Type == watch.Deleted {
				w.observeGone(ctx, d)
				return
			}
			w.observe(app)
		}
	})
	return nil
}

// observe records an event of the Application: the first with the resources finalizer and the
// first marked for deletion.
func (w *removalWatch) observe(app *unstructured.Unstructured) {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if slices.Contains(app.GetFinalizers(), resourcesFinalizer) && w.finalizerAt.IsZero() {
		w.finalizerAt, w.finalizerBy = now, finalizerManager(app)
	}
	if app.GetDeletionTimestamp() != nil && w.deletedAt.IsZero() {
		w.deletedAt = now
	}
}

// observeGone records that the Application is gone, with the release's objects left in the
// cluster then: Argo CD removes the finalizer only once it deleted them.
func (w *removalWatch) observeGone(ctx context.Context, d *demo) {
	now := time.Now()
	objects, err := d.releaseObjects(ctx, w.app.Name)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.gone, w.objectsAtGone, w.err = now, objects, err
}

// liveAt counts the release's objects the watch had not seen marked for deletion by t.
func (w *removalWatch) liveAt(t time.Time) int {
	live := 0
	for _, at := range w.objects {
		if at.IsZero() || at.After(t) {
			live++
		}
	}
	return live
}

// firstObjectDeletion is when the watch first saw one of the release's objects marked for
// deletion (zero if none was).
func (w *removalWatch) firstObjectDeletion() time.Time {
	var first time.Time
	for _, at := range w.objects {
		if !at.IsZero() && (first.IsZero() || at.Before(first)) {
			first = at
		}
	}
	return first
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

// stop ends the watches.
func (w *removalWatch) stop() {
	w.cancel()
	w.watches.Wait()
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
	deletion := w.firstObjectDeletion()
	if w.gone.IsZero() || w.finalizerAt.IsZero() || w.deletedAt.IsZero() || deletion.IsZero() {
		return fmt.Errorf("the Application %s was not removed with the resources finalizer (finalizer seen: %v, deleted: %v, "+
			"objects deleted: %v, gone: %v)", w.app, !w.finalizerAt.IsZero(), !w.deletedAt.IsZero(), !deletion.IsZero(), !w.gone.IsZero())
	}
	since := func(t time.Time) string { return "+" + t.Sub(w.start).Round(10*time.Millisecond).String() }
	console.printf("    Remove %s: resources finalizer before the step: %v; set by %s at %s with %d live objects of the release, "+
		"Application deleted at %s; Argo CD deleted the objects from %s and removed the Application at %s with %d left\n",
		w.app, w.finalizerBefore, w.finalizerBy, since(w.finalizerAt), w.liveAt(w.finalizerAt), since(w.deletedAt),
		since(deletion), since(w.gone), w.objectsAtGone)
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
