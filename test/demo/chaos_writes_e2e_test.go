//go:build e2e

package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/wellknown"
	"github.com/NVIDIA/aicr/test/env"
)

// chaosAuditBodies are the writes the chaos suite's audit log records with their bodies: the
// Applications (to tell a changing write from a no-op one, and whose release it is) and the
// RuntimeRollouts (the name a created one got).
var chaosAuditBodies = []env.AuditResource{
	{Group: "argoproj.io", Resource: "applications"},
	{Group: aicrv1alpha1.GroupVersion.Group, Resource: "runtimerollouts"},
}

// stepKey is one step: a rollout's write of one Application.
type stepKey struct{ rollout, application string }

// appWrites are the operator's writes to Applications, by step, as the audit log recorded them.
type appWrites struct {
	// writes are the changing writes of each step: a create answered 201, or a patch or update
	// answered 200 whose answer carries another resourceVersion than the one its request was
	// guarded by (each of the operator's patches is; a patch answered 200 with the same
	// resourceVersion changed nothing).
	writes map[stepKey]int
	// deletes are the deletes answered 200 or 202 of each step.
	deletes map[stepKey]int
	// noops are patches answered 200 that changed nothing; failed the writes answered otherwise
	// (a conflict, a precondition that no longer held, an Application already gone).
	noops, failed int
	// rollouts are the RuntimeRollouts the operator created, in order; release the release ID
	// of each Application (its release annotation).
	rollouts []string
	release  map[string]string
}

// auditedMeta is the part of an audited body the counting reads.
type auditedMeta struct {
	Metadata struct {
		Name            string            `json:"name"`
		ResourceVersion string            `json:"resourceVersion"`
		Annotations     map[string]string `json:"annotations"`
	} `json:"metadata"`
}

// countAppWrites counts the operator's writes to Applications in events (the whole audit log,
// in order). A write belongs to the step of its Application in the rollout the operator
// created last before it: a rollout's steps run after it is created and before the next one is.
func countAppWrites(events []env.AuditEvent) (appWrites, error) {
	w := appWrites{writes: map[stepKey]int{}, deletes: map[stepKey]int{}, release: map[string]string{}}
	for _, e := range events {
		if e.User.Username != operatorUser || !isWriteVerb(e.Verb) {
			continue
		}
		var resp auditedMeta
		if len(e.ResponseObject) > 0 {
			if err := json.Unmarshal(e.ResponseObject, &resp); err != nil {
				return w, fmt.Errorf("audit response of %s %s/%s: %w", e.Verb, e.ObjectRef.Resource, e.ObjectRef.Name, err)
			}
		}
		switch {
		case e.ObjectRef.Resource == "runtimerollouts" && e.Verb == "create" && e.ResponseStatus.Code == 201:
			w.rollouts = append(w.rollouts, resp.Metadata.Name)
		case e.ObjectRef.Resource == "applications" && e.ObjectRef.APIGroup == "argoproj.io":
			w.add(e, resp)
		}
	}
	return w, nil
}

// add counts one write to an Application.
func (w *appWrites) add(e env.AuditEvent, resp auditedMeta) {
	if id := resp.Metadata.Annotations[wellknown.AnnotationRelease]; id != "" {
		w.release[e.ObjectRef.Name] = id
	}
	var current string
	if len(w.rollouts) > 0 {
		current = w.rollouts[len(w.rollouts)-1]
	}
	key := stepKey{current, e.ObjectRef.Name}
	code := e.ResponseStatus.Code
	switch {
	case e.Verb == "delete" && (code == 200 || code == 202):
		w.deletes[key]++
	case e.Verb == "create" && code == 201:
		w.writes[key]++
	case (e.Verb == "patch" || e.Verb == "update") && code == 200 && changingAppWrite(e):
		w.writes[key]++
	case (e.Verb == "patch" || e.Verb == "update") && code == 200:
		w.noops++
	default:
		w.failed++
	}
}

// stepCheck is what the write counts say of the rollouts' steps.
type stepCheck struct {
	// perStep counts the steps by their number of changing writes (1 for every step when
	// nothing was written twice or lost); a Remove step's delete is counted apart.
	perStep map[int]int
	// problems are the steps written other than once and the writes outside any step.
	problems []string
}

// checkSteps compares the writes with the steps of rollouts: every Install, Upgrade, Verify
// and Remove step writes its Application once (a Remove step's write is the resources
// finalizer), a Remove step deletes it once, and nothing else writes an Application.
func (w appWrites) checkSteps(rollouts []aicrv1alpha1.RuntimeRollout) stepCheck {
	check := stepCheck{perStep: map[int]int{}}
	application := map[string]string{}
	for app, id := range w.release {
		application[id] = app
	}
	inStep := map[stepKey]bool{}
	for _, ro := range rollouts {
		for _, s := range ro.Spec.Steps {
			key := stepKey{ro.Name, application[s.Release]}
			inStep[key] = true
			n := w.writes[key]
			check.perStep[n]++
			if n != 1 {
				check.problems = append(check.problems, fmt.Sprintf("%s step %s (%s): %d writes", ro.Name, s.Release, s.Operation, n))
			}
			if want := map[bool]int{true: 1}[s.Operation == aicrv1alpha1.OperationRemove]; w.deletes[key] != want {
				check.problems = append(check.problems, fmt.Sprintf("%s step %s (%s): %d deletes, want %d", ro.Name, s.Release, s.Operation, w.deletes[key], want))
			}
		}
	}
	for _, key := range slices.SortedFunc(maps.Keys(w.writes), compareKeys) {
		if !inStep[key] {
			check.problems = append(check.problems, fmt.Sprintf("%d writes of %s outside any step (rollout %q)", w.writes[key], key.application, key.rollout))
		}
	}
	for _, key := range slices.SortedFunc(maps.Keys(w.deletes), compareKeys) {
		if !inStep[key] {
			check.problems = append(check.problems, fmt.Sprintf("%d deletes of %s outside any step (rollout %q)", w.deletes[key], key.application, key.rollout))
		}
	}
	return check
}

func compareKeys(a, b stepKey) int {
	return strings.Compare(a.rollout+"/"+a.application, b.rollout+"/"+b.application)
}

// String is the per-step figure: "1 write: 31 steps".
func (c stepCheck) String() string {
	var parts []string
	for _, n := range slices.Sorted(maps.Keys(c.perStep)) {
		parts = append(parts, fmt.Sprintf("%d write(s): %d steps", n, c.perStep[n]))
	}
	return strings.Join(parts, ", ")
}

// changingAppWrite reports a write of the operator that changed an Application: a create
// answered 201, or a patch or update answered 200 with a new resourceVersion.
func changingAppWrite(e env.AuditEvent) bool {
	if e.User.Username != operatorUser || e.ObjectRef.Resource != "applications" {
		return false
	}
	switch e.Verb {
	case "create":
		return e.ResponseStatus.Code == 201
	case "patch", "update":
		var req, resp auditedMeta
		if e.ResponseStatus.Code != 200 || json.Unmarshal(e.RequestObject, &req) != nil || json.Unmarshal(e.ResponseObject, &resp) != nil {
			return false
		}
		return req.Metadata.ResourceVersion == "" || req.Metadata.ResourceVersion != resp.Metadata.ResourceVersion
	}
	return false
}
