package controller

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition helpers with Flux semantics (STYLE R8): markStalled removes Reconciling and sets
// Stalled=True and Ready=False with the same reason; markReconciling removes Stalled. Every
// condition carries the observed generation; LastTransitionTime moves only when the status
// changes and comes from the Clock port.

// setCondition sets c (type, status, reason, message) on conds at generation gen.
func setCondition(conds *[]metav1.Condition, c metav1.Condition, gen int64, now time.Time) {
	c.ObservedGeneration = gen
	c.LastTransitionTime = metav1.NewTime(now)
	if old := meta.FindStatusCondition(*conds, c.Type); old != nil && old.Status == c.Status {
		c.LastTransitionTime = old.LastTransitionTime
	}
	c.Message = truncate(c.Message)
	meta.SetStatusCondition(conds, c)
	if cur := meta.FindStatusCondition(*conds, c.Type); cur != nil {
		cur.LastTransitionTime = c.LastTransitionTime
	}
}

// markStalled sets Stalled=True and Ready=False with reason and message and removes Reconciling.
func markStalled(conds *[]metav1.Condition, reason, message string, gen int64, now time.Time) {
	meta.RemoveStatusCondition(conds, condReconciling)
	setCondition(conds, metav1.Condition{Type: condStalled, Status: metav1.ConditionTrue, Reason: reason, Message: message}, gen, now)
	setCondition(conds, metav1.Condition{Type: condReady, Status: metav1.ConditionFalse, Reason: reason, Message: message}, gen, now)
}

// markReconciling sets Reconciling=True with reason and message and removes Stalled.
func markReconciling(conds *[]metav1.Condition, reason, message string, gen int64, now time.Time) {
	meta.RemoveStatusCondition(conds, condStalled)
	setCondition(conds, metav1.Condition{Type: condReconciling, Status: metav1.ConditionTrue, Reason: reason, Message: message}, gen, now)
}

// clearProgress removes both Reconciling and Stalled (the object is settled).
func clearProgress(conds *[]metav1.Condition) {
	meta.RemoveStatusCondition(conds, condReconciling)
	meta.RemoveStatusCondition(conds, condStalled)
}

// sameConditions compares the conditions of the given types, ignoring order and
// LastTransitionTime (which only moves with the status).
func sameConditions(a, b []metav1.Condition, types []string) bool {
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
	condReady       = "Ready"
	condReconciling = "Reconciling"
	condStalled     = "Stalled"
)
