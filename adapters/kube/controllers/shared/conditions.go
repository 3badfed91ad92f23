package shared

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/NVIDIA/aicr/domain"
)

// Condition helpers with Flux semantics: MarkStalled removes Reconciling and sets
// Stalled=True and Ready=False with the same reason; MarkReconciling removes Stalled. Every
// condition carries the observed generation; LastTransitionTime moves only when the status
// changes and comes from the Clock port.

// SetCondition sets c (type, status, reason, message) on conds at generation gen.
func SetCondition(conds *[]metav1.Condition, c metav1.Condition, gen int64, now time.Time) {
	c.ObservedGeneration = gen
	c.LastTransitionTime = metav1.NewTime(now)
	if old := meta.FindStatusCondition(*conds, c.Type); old != nil && old.Status == c.Status {
		c.LastTransitionTime = old.LastTransitionTime
	}
	c.Message = domain.Truncate(c.Message)
	meta.SetStatusCondition(conds, c)
	if cur := meta.FindStatusCondition(*conds, c.Type); cur != nil {
		cur.LastTransitionTime = c.LastTransitionTime
	}
}

// MarkStalled sets Stalled=True and Ready=False with reason and message and removes Reconciling.
func MarkStalled(conds *[]metav1.Condition, reason, message string, gen int64, now time.Time) {
	meta.RemoveStatusCondition(conds, CondReconciling)
	SetCondition(conds, metav1.Condition{Type: CondStalled, Status: metav1.ConditionTrue, Reason: reason, Message: message}, gen, now)
	SetCondition(conds, metav1.Condition{Type: CondReady, Status: metav1.ConditionFalse, Reason: reason, Message: message}, gen, now)
}

// MarkReconciling sets Reconciling=True with reason and message and removes Stalled.
func MarkReconciling(conds *[]metav1.Condition, reason, message string, gen int64, now time.Time) {
	meta.RemoveStatusCondition(conds, CondStalled)
	SetCondition(conds, metav1.Condition{Type: CondReconciling, Status: metav1.ConditionTrue, Reason: reason, Message: message}, gen, now)
}

// ClearProgress removes both Reconciling and Stalled (the object is settled).
func ClearProgress(conds *[]metav1.Condition) {
	meta.RemoveStatusCondition(conds, CondReconciling)
	meta.RemoveStatusCondition(conds, CondStalled)
}

// SameConditions compares the conditions of the given types, ignoring order and
// LastTransitionTime (which only moves with the status).
func SameConditions(a, b []metav1.Condition, types []string) bool {
	for _, t := range types {
		x, y := meta.FindStatusCondition(a, t), meta.FindStatusCondition(b, t)
		switch {
		case x == nil && y == nil:
			continue
		case x == nil || y == nil:
			return false
		case x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message || x.ObservedGeneration != y.ObservedGeneration:
			return false
		}
	}
	return true
}

// Condition types shared by both kinds (kstatus).
const (
	CondReady       = "Ready"
	CondReconciling = "Reconciling"
	CondStalled     = "Stalled"
)
