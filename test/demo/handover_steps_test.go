//go:build handover

package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/argocdsim"
	"github.com/NVIDIA/aicr/test/chartrender"
)

// holdAt releases each step's Application as it appears until the n-th exists, and returns
// its name with that step held in flight. It fails when the runtime is rolled out first.
func (h *handoverCluster) holdAt(ctx context.Context, n int) string {
	h.t.Helper()
	var held string
	err := poll(ctx, func() (bool, error) {
		apps := &argov1.ApplicationList{}
		if err := h.admin.List(ctx, apps, client.InNamespace(chartrender.FlagValue(h.args, "--engine-namespace"))); err != nil {
			return false, err
		}
		for _, app := range apps.Items {
			if !slices.Contains(h.order, app.Name) {
				h.order = append(h.order, app.Name)
			}
		}
		for i, name := range h.order {
			if i < n-1 && !h.released[name] {
				if err := h.release(ctx, name); err != nil {
					return false, err
				}
			}
		}
		if len(h.order) >= n {
			held = h.order[n-1]
			return true, nil
		}
		cr := &aicrv1alpha1.ClusterRuntime{}
		if err := h.admin.Get(ctx, client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, cr); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		if meta.IsStatusConditionTrue(cr.Status.Conditions, aicrv1alpha1.ConditionReady) {
			return false, fmt.Errorf("the runtime rolled out with %d Applications, before step %d", len(h.order), n)
		}
		return false, nil
	})
	require.NoError(h.t, err, "step %d in flight", n)
	return held
}

// release marks the Application name synced and healthy: its step can finish.
func (h *handoverCluster) release(ctx context.Context, name string) error {
	namespace, id, found := strings.Cut(name, ".")
	if !found {
		return fmt.Errorf("application %q is not named <namespace>.<release>", name)
	}
	ref := ports.ReleaseRef{ID: id, Namespace: namespace}
	h.sim.SetMode(ref, argocdsim.Healthy)
	if _, err := h.sim.Settle(ctx, ref); err != nil {
		return err
	}
	h.released[name] = true
	return nil
}

// finish releases every step and waits until the runtime is rolled out.
func (h *handoverCluster) finish(ctx context.Context) {
	h.t.Helper()
	h.sim.SetDefault(argocdsim.Healthy)
	_, err := h.sim.SettleAll(ctx)
	require.NoError(h.t, err)
	_, err = waitRuntime(ctx, h.admin, "the initial install", func(cr *aicrv1alpha1.ClusterRuntime) bool {
		return conditionTrue(cr, aicrv1alpha1.ConditionReady)
	})
	require.NoError(h.t, err)
}

// waitLease waits until user writes the Lease after since and returns when the API server
// answered that write.
func (h *handoverCluster) waitLease(ctx context.Context, user string, since time.Time) time.Time {
	h.t.Helper()
	var took time.Time
	err := poll(ctx, func() (bool, error) {
		var found bool
		took, found = h.readWrites().firstLeaseWrite(user, since)
		return found, nil
	})
	require.NoError(h.t, err, "%s holds the Lease", user)
	return took
}

// waitsOn returns what the rollout's status says it waits for (its message) once it names the
// release of the held Application: the status says what the rollout waits on.
func (h *handoverCluster) waitsOn(ctx context.Context, held string) string {
	h.t.Helper()
	_, release, _ := strings.Cut(held, ".")
	var msg string
	err := poll(ctx, func() (bool, error) {
		ros := &aicrv1alpha1.RuntimeRolloutList{}
		if err := h.admin.List(ctx, ros); err != nil {
			return false, err
		}
		for _, ro := range ros.Items {
			msg = fmt.Sprintf("step %d: %s", ro.Status.CurrentStep, ro.Status.Message)
			if strings.Contains(ro.Status.Message, release) {
				return true, nil
			}
		}
		return false, nil
	})
	require.NoError(h.t, err, "the rollout's status names %s (last seen %q)", release, msg)
	return msg
}

// retryingWatch records every Retrying condition the runtime and its rollouts show while it runs.
type retryingWatch struct {
	mu   sync.Mutex
	seen []string
	stop context.CancelFunc
	done chan struct{}
}

// watchRetrying starts recording the Retrying conditions.
func (h *handoverCluster) watchRetrying() *retryingWatch {
	ctx, cancel := context.WithCancel(context.Background())
	w := &retryingWatch{stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		_ = poll(ctx, func() (bool, error) {
			cr := &aicrv1alpha1.ClusterRuntime{}
			if h.admin.Get(ctx, client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, cr) == nil {
				w.note("ClusterRuntime", cr.Status.Conditions)
			}
			ros := &aicrv1alpha1.RuntimeRolloutList{}
			if h.admin.List(ctx, ros) == nil {
				for _, ro := range ros.Items {
					w.note("RuntimeRollout "+ro.Name, ro.Status.Conditions)
				}
			}
			return false, nil
		})
	}()
	return w
}

func (w *retryingWatch) note(object string, conditions []metav1.Condition) {
	c := meta.FindStatusCondition(conditions, aicrv1alpha1.ConditionRetrying)
	if c == nil || c.Status != metav1.ConditionTrue {
		return
	}
	line := fmt.Sprintf("%s Retrying %s: %s", object, c.Reason, c.Message)
	w.mu.Lock()
	defer w.mu.Unlock()
	if !slices.Contains(w.seen, line) {
		w.seen = append(w.seen, line)
	}
}

// end stops recording and returns what was seen.
func (w *retryingWatch) end() []string {
	w.stop()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.seen)
}
