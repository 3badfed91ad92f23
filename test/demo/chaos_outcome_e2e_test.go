//go:build e2e

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/wellknown"
	"github.com/NVIDIA/aicr/test/chartrender"
	"github.com/NVIDIA/aicr/test/env"
)

// jobsGoneWithin is how long the operator has after the walk to delete its finished Jobs.
const jobsGoneWithin = 2 * time.Minute

// chaosResult is one seed's figures.
type chaosResult struct {
	seed  int64
	real  bool
	kills []string
	// counted are the operator's writes the kill points counted.
	counted writeCounts
	took    time.Duration
	// steps are the per-step write counts, noops and failed the other Application writes.
	steps         stepCheck
	noops, failed int
	rollouts      int
	applications  int
	// lost counts the releases without their Application and the rollouts that did not
	// succeed; problems are every failed check, lost included.
	lost     int
	problems []string
}

// checkChaosOutcome checks the cluster and the audit log after a walk.
func checkChaosOutcome(ctx context.Context, d *demo, auditLog string) (chaosResult, error) {
	var r chaosResult
	var cr aicrv1alpha1.ClusterRuntime
	if err := d.admin.Get(ctx, client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, &cr); err != nil {
		return r, err
	}
	if !conditionTrue(&cr, aicrv1alpha1.ConditionReady) || cr.Status.ActivePlanDigest != cr.Status.TargetPlanDigest {
		r.problems = append(r.problems, fmt.Sprintf("runtime not Ready at its target: active %s, target %s",
			cr.Status.ActivePlanDigest, cr.Status.TargetPlanDigest))
	}
	var rollouts aicrv1alpha1.RuntimeRolloutList
	if err := d.admin.List(ctx, &rollouts); err != nil {
		return r, err
	}
	r.rollouts = len(rollouts.Items)
	r.checkRollouts(rollouts.Items, cr.Status.ActivePlanDigest)
	apps, err := d.applications(ctx)
	if err != nil {
		return r, err
	}
	r.applications = len(apps)
	r.checkApplications(apps, rollouts.Items, cr.Status.ActivePlanDigest, d.real)
	if err = r.checkJobs(ctx, d); err != nil {
		return r, err
	}
	events, err := env.ReadAudit(auditLog)
	if err != nil {
		return r, err
	}
	w, err := countAppWrites(events)
	if err != nil {
		return r, err
	}
	r.steps, r.noops, r.failed = w.checkSteps(rollouts.Items), w.noops, w.failed
	r.problems = append(r.problems, r.steps.problems...)
	if len(w.rollouts) != len(rollouts.Items) {
		r.problems = append(r.problems, fmt.Sprintf("the operator created %d RuntimeRollouts (%s), %d exist",
			len(w.rollouts), strings.Join(w.rollouts, ", "), len(rollouts.Items)))
	}
	return r, nil
}

// checkRollouts wants one RuntimeRollout per plan, each succeeded with its validation evidence.
func (r *chaosResult) checkRollouts(rollouts []aicrv1alpha1.RuntimeRollout, active string) {
	targets := map[string]string{}
	for _, ro := range rollouts {
		if other, dup := targets[ro.Spec.ToPlanDigest]; dup {
			r.problems = append(r.problems, fmt.Sprintf("duplicate RuntimeRollouts %s and %s toward %s", other, ro.Name, ro.Spec.ToPlanDigest))
		}
		targets[ro.Spec.ToPlanDigest] = ro.Name
		if ro.Status.Phase != aicrv1alpha1.PhaseSucceeded {
			r.lost++
			r.problems = append(r.problems, fmt.Sprintf("rollout %s %s: %s", ro.Name, ro.Status.Phase, ro.Status.Message))
		}
		if ro.Annotations[aicrv1alpha1.AnnotationEvidence] == "" {
			r.problems = append(r.problems, fmt.Sprintf("rollout %s has no validation evidence", ro.Name))
		}
	}
	if len(rollouts) != 2 {
		r.problems = append(r.problems, fmt.Sprintf("%d RuntimeRollouts, want 2 (the initial install and the approved rollout)", len(rollouts)))
	}
	if _, ok := targets[active]; !ok {
		r.problems = append(r.problems, "no rollout toward the active plan "+active)
	}
}

// checkApplications wants an Application for every release of the active plan (the steps of
// the rollout toward it but its Remove steps), each at the active plan and, with the real
// Argo CD, synced to the revision it pins and healthy; and none else.
func (r *chaosResult) checkApplications(apps []unstructured.Unstructured, rollouts []aicrv1alpha1.RuntimeRollout, active string, real bool) {
	want := map[string]bool{}
	for _, ro := range rollouts {
		if ro.Spec.ToPlanDigest != active {
			continue
		}
		for _, s := range ro.Spec.Steps {
			want[s.Release] = s.Operation != aicrv1alpha1.OperationRemove
		}
	}
	for _, app := range apps {
		id := app.GetAnnotations()[wellknown.AnnotationRelease]
		if !want[id] {
			r.problems = append(r.problems, fmt.Sprintf("Application %s (release %q) is not a release of the active plan", app.GetName(), id))
		}
		delete(want, id)
		if plan := app.GetAnnotations()[wellknown.AnnotationPlanDigest]; plan != active {
			r.problems = append(r.problems, fmt.Sprintf("Application %s at plan %s, not the active %s", app.GetName(), plan, active))
		}
		if !real {
			continue
		}
		pinned, _, _ := unstructured.NestedString(app.Object, "spec", "source", "targetRevision")
		synced, _, _ := unstructured.NestedString(app.Object, "status", "sync", "revision")
		sync, _, _ := unstructured.NestedString(app.Object, "status", "sync", "status")
		health, _, _ := unstructured.NestedString(app.Object, "status", "health", "status")
		if synced != pinned || sync != "Synced" || health != "Healthy" {
			r.problems = append(r.problems, fmt.Sprintf("Application %s: %s %s at %s, pins %s", app.GetName(), sync, health, synced, pinned))
		}
	}
	for id, kept := range want {
		if kept {
			r.lost++
			r.problems = append(r.problems, fmt.Sprintf("release %s of the active plan has no Application", id))
		}
	}
}

// checkJobs waits until the operator deleted every AICR Job (resolver stages, snapshot agent,
// validation) and reports those left after jobsGoneWithin.
func (r *chaosResult) checkJobs(ctx context.Context, d *demo) error {
	args := d.procs[0].Args()
	var left []string
	wait, cancel := context.WithTimeout(ctx, jobsGoneWithin)
	defer cancel()
	err := poll(wait, func() (bool, error) {
		left = left[:0]
		for _, flag := range []string{"--jobs-namespace", "--discovery-namespace", "--validation-namespace"} {
			var jobs batchv1.JobList
			if err := d.admin.List(ctx, &jobs, client.InNamespace(chartrender.FlagValue(args, flag))); err != nil {
				return false, err
			}
			for _, j := range jobs.Items {
				left = append(left, j.Namespace+"/"+j.Name)
			}
		}
		return len(left) == 0, nil
	})
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if len(left) > 0 {
		r.problems = append(r.problems, "AICR Jobs left behind: "+strings.Join(left, ", "))
	}
	return nil
}

// checkReached wants every kill point of plan reached: a walk that makes fewer writes than
// the plan draws from (chaosCountedWrites, chaosAppWrites) would kill less than it says.
func (r *chaosResult) checkReached(plan killPlan) {
	if last := plan.afterWrite[len(plan.afterWrite)-1]; last > r.counted.all {
		r.problems = append(r.problems, fmt.Sprintf("kill point: counted write %d never came (%d counted writes)", last, r.counted.all))
	}
	if last := plan.afterAppWrite[len(plan.afterAppWrite)-1]; last > r.counted.applications {
		r.problems = append(r.problems, fmt.Sprintf("kill point: Application write %d never came (%d changing Application writes)", last, r.counted.applications))
	}
}

// print writes the seed's figures to standard output (go test -v shows them).
func (r chaosResult) print() {
	engine := map[bool]string{true: "the real Argo CD", false: "the stand-in Argo CD"}[r.real]
	report("chaos seed %d (%s): %d kills survived in %s\n", r.seed, engine, len(r.kills), r.took.Round(time.Second))
	for i, k := range r.kills {
		report("    kill %d %s\n", i+1, k)
	}
	report("    the operator's counted writes: %d, of them changing Application writes: %d\n", r.counted.all, r.counted.applications)
	report("    Application writes per step: %s; no-op patches %d, failed attempts %d\n", r.steps, r.noops, r.failed)
	report("    %d RuntimeRollouts, %d Applications, lost: %d, problems: %d\n", r.rollouts, r.applications, r.lost, len(r.problems))
	for _, p := range r.problems {
		report("    PROBLEM %s\n", p)
	}
}

// report writes a line of the suite's figures to standard output, which go test -v shows
// whether the test passes or not.
func report(format string, args ...any) {
	_, _ = fmt.Fprintf(os.Stdout, format, args...)
}

// printChaosTotals writes the figures of all seeds.
func printChaosTotals(results []chaosResult, took time.Duration) {
	var kills, lost, steps, once int
	for _, r := range results {
		kills += len(r.kills)
		lost += r.lost
		for n, count := range r.steps.perStep {
			steps += count
			if n == 1 {
				once += count
			}
		}
	}
	report("chaos: %d seeds, %d kills survived, %d of %d steps written exactly once, lost: %d, in %s\n",
		len(results), kills, once, steps, lost, took.Round(time.Second))
}
