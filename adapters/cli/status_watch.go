package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	watchtools "k8s.io/client-go/tools/watch"
	"k8s.io/klog/v2"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// errReread ends one watch whose resourceVersion the API server no longer keeps: the rollout
// is read again and a new watch starts from what it says.
var errReread = errors.New("watch expired")

// follow prints statusLine each time it changes until judge decides, reading the rollout and
// then watching it with client-go's RetryWatcher, which opens a closed watch again from the
// last resourceVersion. Every read runs under --request-timeout; the whole follow under
// --timeout.
func (s *session) follow(name string) error {
	// The RetryWatcher logs a refused watch through klog before it reports it; the command
	// reports it once, as its error.
	ctx, cancel := watchtools.ContextWithOptionalTimeout(klog.NewContext(s.parent, logr.Discard()), s.o.flags.timeout)
	defer cancel()
	f := &follower{s: s, name: name}
	for first := true; ; first = false {
		ro, err := f.read(ctx, first)
		if err != nil {
			return f.stopped(ctx, err)
		}
		if done, judged := f.observe(ro); done || judged != nil {
			return judged
		}
		w, err := watchtools.NewRetryWatcherWithContext(ctx, ro.ResourceVersion, rolloutWatcher{s: s, name: name})
		if err != nil {
			return fmt.Errorf("watch rollout %s: %w", name, err)
		}
		_, err = watchtools.UntilWithoutRetry(ctx, w, f.onEvent)
		if !errors.Is(err, errReread) {
			return f.stopped(ctx, err)
		}
	}
}

// follower is one status -w: the rollout it follows (its UID, once read) and the line it
// printed last.
type follower struct {
	s    *session
	name string
	uid  types.UID
	last string
}

// observe prints ro's line when it changed and reports whether judge decided on ro. A rollout
// of the same name with another UID ends the follow: the one followed was deleted.
func (f *follower) observe(ro *aicrv1alpha1.RuntimeRollout) (bool, error) {
	if f.uid == "" {
		f.uid = ro.UID
	}
	if ro.UID != f.uid {
		return true, fmt.Errorf("rollout %s %w; another rollout (uid %s) has its name now", f.name, ErrRolloutDeleted, ro.UID)
	}
	if line := statusLine(ro); line != f.last {
		if err := f.s.o.say("%s", line); err != nil {
			return true, err
		}
		f.last = line
	}
	v, err := judge(ro)
	return v != inProgress, err
}

// read reads the rollout: first under the command's deadline, later (after a watch expired,
// long after the command started) under a fresh --request-timeout within ctx.
func (f *follower) read(ctx context.Context, first bool) (*aicrv1alpha1.RuntimeRollout, error) {
	if first {
		return f.s.rollout(f.name)
	}
	again := *f.s
	var cancel context.CancelFunc
	again.ctx, cancel = f.s.o.withDeadline(ctx)
	defer cancel()
	return again.rollout(f.name)
}

// onEvent is the watch condition: a change is observed, a deletion or a refused watch ends the
// follow, an expired resourceVersion reads the rollout again.
func (f *follower) onEvent(ev watch.Event) (bool, error) {
	switch ev.Type {
	case watch.Deleted:
		return true, fmt.Errorf("rollout %s %w", f.name, ErrRolloutDeleted)
	case watch.Error:
		err := apierrors.FromObject(ev.Object)
		if apierrors.IsGone(err) || apierrors.IsResourceExpired(err) {
			return true, errReread
		}
		return true, fmt.Errorf("watch rollout %s: %w", f.name, err)
	case watch.Added, watch.Modified:
		u, ok := ev.Object.(*unstructured.Unstructured)
		if !ok {
			return true, fmt.Errorf("watch rollout %s: unexpected object %T", f.name, ev.Object)
		}
		ro := &aicrv1alpha1.RuntimeRollout{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, ro); err != nil {
			return true, fmt.Errorf("decode rollout %s: %w", f.name, err)
		}
		return f.observe(ro)
	case watch.Bookmark:
	}
	return false, nil
}

// stopped turns why the follow stopped into its error: --timeout passing names the last line.
func (f *follower) stopped(ctx context.Context, err error) error {
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && f.s.parent.Err() == nil {
		return fmt.Errorf("rollout %s %w (%s); last seen: %s", f.name, ErrWatchTimeout, f.s.o.flags.timeout, f.last)
	}
	return err
}

// rolloutWatcher watches the one rollout status -w follows.
type rolloutWatcher struct {
	s    *session
	name string
}

// WatchWithContext watches the rollout from options' resourceVersion.
func (w rolloutWatcher) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	options.FieldSelector = fields.OneTermEqualSelector("metadata.name", w.name).String()
	return w.s.dyn.Resource(rolloutGVR).Watch(ctx, options)
}
