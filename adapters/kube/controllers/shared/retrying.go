package shared

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// Retrying condition: normal-false, True while the object's last reconcile failed with an error
// the work queue retries with backoff (the API server, the deployment engine or the registry
// unreachable or failing). It never touches Ready, Available, Reconciling or Stalled, which keep
// describing the object, and it is removed once a reconcile of the object succeeds.
const (
	// CondRetrying is the condition type.
	CondRetrying = aicrv1alpha1.ConditionRetrying
	// ReasonAPIServerError: the Kubernetes API server answered the failed request with an error.
	ReasonAPIServerError = "APIServerError"
	// ReasonHostUnanswered: a host the operator called over HTTP (the runtime registry, an
	// upstream chart repository) accepted the request but sent no answer within the client's
	// timeout; the message names the host and the request.
	ReasonHostUnanswered = "HostUnanswered"
	// ReasonTransientError: any other failure retried with backoff.
	ReasonTransientError = "TransientError"
	// RetryingFieldManager is the server-side-apply field manager that owns only the Retrying
	// condition, so its writes never take over the conditions of the other managers.
	RetryingFieldManager = "aicr-retrying"
)

// RetryingStatus shows and clears the Retrying condition of the objects of one kind. It keeps
// what it last wrote of each object, so a failure that repeats with the same message writes
// nothing and a success clears the condition even while the cache is behind the write that set
// it. Safe for concurrent use.
type RetryingStatus[T client.Object] struct {
	client     client.Client
	clock      ports.Clock
	kind       string
	newObj     func() T
	conditions func(T) []metav1.Condition

	mu    sync.Mutex
	shown map[string]metav1.Condition
}

// NewRetryingStatus returns the Retrying writer of kind (cluster-scoped objects read through c
// with newObj, their conditions read by conditions), with time from clock.
func NewRetryingStatus[T client.Object](c client.Client, clock ports.Clock, kind string, newObj func() T,
	conditions func(T) []metav1.Condition) *RetryingStatus[T] {
	return &RetryingStatus[T]{client: c, clock: clock, kind: kind, newObj: newObj, conditions: conditions,
		shown: map[string]metav1.Condition{}}
}

// Report shows err, the error a reconcile of the object named name returned, as the Retrying
// condition, or clears the condition when err is nil. A write that fails is logged only: the
// reconcile's own result stands, and the next one tries again.
func (s *RetryingStatus[T]) Report(ctx context.Context, name string, err error) {
	var werr error
	if err != nil {
		werr = s.show(ctx, name, err)
	} else {
		werr = s.clear(ctx, name)
	}
	switch {
	case apierrors.IsNotFound(werr):
		s.mu.Lock()
		delete(s.shown, name)
		s.mu.Unlock()
	case werr != nil:
		logf.FromContext(ctx).V(1).Info("could not write the Retrying condition", "kind", s.kind, "name", name, "error", werr.Error())
	}
}

// RetryingCondition is the Retrying condition for err: the reason says what the operator waits
// on (HostUnanswered with the host and the request when a call got no answer in time), the
// message the error and the backoff bound.
func RetryingCondition(err error) metav1.Condition {
	reason, what := ReasonTransientError, "a dependency (the deployment engine, the registry or the API server)"
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		reason, what = ReasonAPIServerError, "the Kubernetes API server"
	}
	if host, request, ok := Unanswered(err); ok {
		reason, what = ReasonHostUnanswered, answerOf(host, request)
	}
	return metav1.Condition{Type: CondRetrying, Status: metav1.ConditionTrue, Reason: reason,
		Message: domain.Truncate(fmt.Sprintf("waiting for %s, retrying with backoff (at most %s): %v", what, MaxRetryBackoff, err))}
}

func (s *RetryingStatus[T]) show(ctx context.Context, name string, err error) error {
	c := RetryingCondition(err)
	s.mu.Lock()
	prev, ok := s.shown[name]
	s.mu.Unlock()
	if ok && prev.Reason == c.Reason && prev.Message == c.Message {
		return nil
	}
	c.LastTransitionTime = metav1.NewTime(s.clock.Now())
	if ok {
		c.LastTransitionTime = prev.LastTransitionTime
	}
	cond := map[string]any{
		"type": c.Type, "status": string(c.Status), "reason": c.Reason, "message": c.Message,
		"lastTransitionTime": c.LastTransitionTime.UTC().Format(time.RFC3339),
	}
	if err := s.apply(ctx, name, map[string]any{"conditions": []any{cond}}); err != nil {
		return err
	}
	s.mu.Lock()
	s.shown[name] = c
	s.mu.Unlock()
	return nil
}

// clear removes the condition when this process showed it or the object as read shows it (a
// condition set before a restart).
func (s *RetryingStatus[T]) clear(ctx context.Context, name string) error {
	s.mu.Lock()
	_, ok := s.shown[name]
	s.mu.Unlock()
	if !ok {
		obj := s.newObj()
		if err := s.client.Get(ctx, client.ObjectKey{Name: name}, obj); err != nil {
			return err
		}
		if meta.FindStatusCondition(s.conditions(obj), CondRetrying) == nil {
			return nil
		}
	}
	// Applying no condition removes the one this field manager owns.
	if err := s.apply(ctx, name, map[string]any{}); err != nil {
		return err
	}
	s.mu.Lock()
	delete(s.shown, name)
	s.mu.Unlock()
	return nil
}

// apply server-side applies status as the Retrying field manager.
func (s *RetryingStatus[T]) apply(ctx context.Context, name string, status map[string]any) error {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": aicrv1alpha1.GroupVersion.String(), "kind": s.kind,
		"metadata": map[string]any{"name": name}, "status": status,
	}}
	if err := s.client.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(u),
		client.FieldOwner(RetryingFieldManager), client.ForceOwnership); err != nil {
		return fmt.Errorf("apply %s %s status: %w", s.kind, name, err)
	}
	return nil
}
