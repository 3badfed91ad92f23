package rollout

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/domain"
)

// persist writes what the decisions changed: first, when the domain decided the rollout's end
// in this reconcile (Outcome.Ended, never a terminal phase it was merely handed), the outcome
// label with the message saying why, sealed with the operator's key (and the evidence
// annotation of a validated success, with its own seal) with
// a patch whose precondition is the resourceVersion, so they are set once (RO-6); then the
// status, only when it changed; then the Events of the decisions. Each write is remembered
// (ownWrites). A failed write returns, with its error, the decisions whose Events are owed
// (unrecordedEvents): those that started a step, whose engine writes were made whether or not
// the status says so, and after the outcome label every decision of the pass.
func (r *Reconciler) persist(ctx context.Context, ro *aicrv1alpha1.RuntimeRollout, out domain.Outcome,
	decisions []app.Decision) error {
	prevStall := meta.FindStatusCondition(ro.Status.Conditions, shared.CondStalled)
	labelled := false
	if out.Ended && ro.Labels[aicrv1alpha1.LabelOutcome] == "" {
		patch := client.MergeFromWithOptions(ro.DeepCopy(), client.MergeFromWithOptimisticLock{})
		if ro.Labels == nil {
			ro.Labels = map[string]string{}
		}
		ro.Labels[aicrv1alpha1.LabelOutcome] = string(out.Phase())
		if ro.Annotations == nil {
			ro.Annotations = map[string]string{}
		}
		if out.Status.Message != "" {
			ro.Annotations[aicrv1alpha1.AnnotationOutcomeMessage] = domain.Truncate(out.Status.Message)
		}
		if out.EvidenceDigest != "" {
			ro.Annotations[aicrv1alpha1.AnnotationEvidence] = string(out.EvidenceDigest)
			shared.SealEvidence(r.ports.Sealer, ro)
		}
		shared.SealOutcome(r.ports.Sealer, ro)
		base := ro.ResourceVersion
		if err := r.client.Patch(ctx, ro, patch); err != nil {
			return withOwedEvents(fmt.Errorf("set outcome label of %s: %w", ro.Name, err), ro, decisions, false)
		}
		r.own.remember(base, ro)
		labelled = true
	}
	now := r.ports.Clock.Now()
	status := toStatus(withStartsShown(ro, decisions), out.Status, out.Stall, now)
	if !equality.Semantic.DeepEqual(ro.Status, status) {
		ro.Status = status
		base := ro.ResourceVersion
		if err := r.client.Status().Update(ctx, ro); err != nil {
			return withOwedEvents(fmt.Errorf("write status of %s: %w", ro.Name, err), ro, decisions, labelled)
		}
		r.own.remember(base, ro)
	}
	r.record(ctx, ro, decisions, prevStall)
	return nil
}

// withStartsShown is ro with the step starts among decisions folded into its status's releases
// in order: a step that started and finished within one pass (an engine that showed it ready at
// once) keeps its release's start time, and the rollout its start, though no status write showed
// the step in flight.
func withStartsShown(ro *aicrv1alpha1.RuntimeRollout, decisions []app.Decision) *aicrv1alpha1.RuntimeRollout {
	shown := ro
	for _, d := range decisions {
		st := d.Out.Status
		if !d.Out.Mutated || st.StepStartedAt.IsZero() {
			continue
		}
		if shown == ro {
			shown = &aicrv1alpha1.RuntimeRollout{ObjectMeta: ro.ObjectMeta, Spec: ro.Spec, Status: *ro.Status.DeepCopy()}
		}
		shown.Status.Releases = releaseStates(shown, st, shown.Status.Releases)
		if shown.Status.StartedAt == nil {
			shown.Status.StartedAt = &metav1.Time{Time: st.StepStartedAt}
		}
	}
	return shown
}

// record emits one Event and one log line per decision (OPS-1) and per new stall, and updates
// the step and stall metrics.
func (r *Reconciler) record(ctx context.Context, ro *aicrv1alpha1.RuntimeRollout, decisions []app.Decision,
	prevStall *metav1.Condition) {
	now := r.ports.Clock.Now()
	log := logf.FromContext(ctx)
	for _, d := range decisions {
		if d.Out.Event != "" {
			reason, kind := d.Out.EventReason, corev1.EventTypeNormal
			if d.Out.EventWarning {
				kind = corev1.EventTypeWarning
			}
			r.recorder.Event(ro, kind, reason.String(), domain.Truncate(d.Out.Event))
			logDecision(log, ro, d, reason)
			if reason == domain.EventStepSucceeded && !d.From.StepStartedAt.IsZero() && d.From.Step < len(ro.Spec.Steps) {
				op := string(ro.Spec.Steps[d.From.Step].Operation)
				r.metrics.StepDuration.WithLabelValues(op).Observe(now.Sub(d.From.StepStartedAt).Seconds())
			}
		}
		s := d.Out.Stall
		if s == nil || (prevStall != nil && prevStall.Reason == string(s.Reason()) && prevStall.Message == s.Message()) {
			continue
		}
		r.recorder.Event(ro, corev1.EventTypeWarning, string(s.Reason()), domain.Truncate(s.Message()))
		logStall(log, ro, s)
		r.metrics.Stalls.WithLabelValues(string(s.Reason())).Inc()
	}
}

// settleEnded handles a rollout carrying its outcome label whose status does not say so: a
// crash came between the label and the status, or a restored rollout came back without status.
// The message is the one recorded with the label; a restored rollout records each release of
// its steps as Unknown (RO-6, RO-13). The cache is often only behind the status written right
// after the label, so the rollout is read live first and written only if it still needs it.
func (r *Reconciler) settleEnded(ctx context.Context, cached *aicrv1alpha1.RuntimeRollout) error {
	outcome := aicrv1alpha1.Phase(cached.Labels[aicrv1alpha1.LabelOutcome])
	if cached.Status.Phase == outcome {
		return nil
	}
	ro := &aicrv1alpha1.RuntimeRollout{}
	if err := r.live.Get(ctx, client.ObjectKeyFromObject(cached), ro); err != nil {
		return client.IgnoreNotFound(err)
	}
	if ro.Status.Phase == outcome || ro.Labels[aicrv1alpha1.LabelOutcome] != string(outcome) {
		return nil
	}
	restored := ro.Status.Phase == ""
	st := domain.RolloutStatus{Phase: domain.Phase(outcome), Message: ro.Annotations[aicrv1alpha1.AnnotationOutcomeMessage]}
	switch {
	case restored && st.Message != "":
		st.Message = "restored: " + st.Message
	case restored:
		st.Message = "restored: phase rebuilt from the outcome label"
	case st.Message == "":
		st.Message = ro.Status.Message
	}
	status := toStatus(ro, st, nil, r.ports.Clock.Now())
	if restored {
		for i := range status.Releases {
			status.Releases[i].State, status.Releases[i].StartedAt = aicrv1alpha1.ReleaseUnknown, nil
		}
	}
	ro.Status = status
	base := ro.ResourceVersion
	if err := r.client.Status().Update(ctx, ro); err != nil {
		return fmt.Errorf("write status of %s: %w", ro.Name, err)
	}
	r.own.remember(base, ro)
	if restored {
		r.recorder.Event(ro, corev1.EventTypeNormal, domain.EventRolloutRestored.String(), st.Message)
	}
	return nil
}
