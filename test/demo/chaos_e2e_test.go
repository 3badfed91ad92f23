//go:build e2e

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/require"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/test/env"
)

// chaosSeedTimeout bounds one seed's walk; a walk that does not finish in it has stalled.
const chaosSeedTimeout = 10 * time.Minute

// TestChaosKills walks the demo's validated transitions with the real operator binary and kills
// it with SIGKILL (kill -9) at points a seed chooses, restarting it with the same arguments
// after each kill. CHAOS_SEEDS selects the seeds ("1-3,7"; `make test-chaos` and
// `make test-chaos-long`). Each seed runs on a control plane of its own: plan resolution, the
// initial install (15 Applications) and its validation, a hand edit of an Application, an
// override change that needs approval, the approval, the acknowledged rollout with a Remove
// step and its validation. The kill points (killPlan) are events, not times: after the Nth of
// the operator's counted writes in the API server's audit log (its successful writes but to
// Leases, Events and reviews), after its Nth changing write to an Application, and at one
// boundary of every resolver stage Job (the Job created, or completed).
//
// At the end each seed asserts and prints: the runtime Ready at its target plan; every release
// at its plan revision (its Application carries the active plan and, with the real Argo CD,
// is synced to the chart digest it pins and healthy); each Application written once per step;
// no AICR Job left behind; no duplicate RuntimeRollout (one per plan, each created once); the
// validation evidence of every rollout; and what was lost, which must be nothing.
//
// What counts as a write of a step, from the audit log (the Applications' and RuntimeRollouts'
// writes are recorded with their bodies): a write of the operator's user to an Application
// that changed it: a create answered 201, or a patch answered 200 whose answer carries another
// resourceVersion than the one its request was guarded by (the operator guards every patch
// with the resourceVersion it read; the same one in the answer means the patch changed
// nothing, which is counted apart as a no-op). Deletes answered 200 or 202 are counted apart,
// and answers other than these (conflicts, failed preconditions) are failed attempts, which
// changed nothing. A write belongs to the step of its Application in the rollout the operator
// created last before it. Every Install, Upgrade, Verify and Remove step must have exactly one
// write (a Remove step's is the resources finalizer) and a Remove step exactly one delete.
func TestChaosKills(t *testing.T) {
	spec := os.Getenv("CHAOS_SEEDS")
	if spec == "" {
		spec = "1"
	}
	seeds, err := parseSeeds(spec)
	require.NoError(t, err)
	ctrllog.SetLogger(logr.Discard()) // the walk prints what it does itself, as the demo does
	started := time.Now()
	var results []chaosResult
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			r := runChaosSeed(t, newKillPlan(seed))
			results = append(results, r)
			r.print()
		})
	}
	printChaosTotals(results, time.Since(started))
}

// runChaosSeed walks the demo once under plan's kills and checks the outcome.
func runChaosSeed(t *testing.T, plan killPlan) chaosResult {
	// The walk's console is beside its work directory, which the walk empties first.
	workdir := filepath.Join(t.TempDir(), "walk")
	consoleLog, err := os.Create(filepath.Join(filepath.Dir(workdir), "console.log"))
	require.NoError(t, err)
	defer func() { _ = consoleLog.Close() }()
	console = &lockedWriter{w: consoleLog}
	auditLog := filepath.Join(workdir, "audit.jsonl") // not a *.log: logTails skips it
	d := &demo{workdir: workdir, binaries: filepath.Join(workdir, "bin"), argoCD: "auto",
		controlPlane: env.Options{AuditLog: auditLog, AuditBodies: chaosAuditBodies}}
	d.real, err = d.realArgoCD()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), chaosSeedTimeout)
	defer cancel()
	started := time.Now()
	var m *monkey
	defer func() {
		if m != nil {
			m.stop()
			m.operator().Stop()
		}
		d.stop()
	}()
	progress("chaos plan: %s", plan)
	for _, s := range []func(context.Context) error{d.startControlPlane, d.install, d.startProcesses} {
		require.NoError(t, s(ctx), "logs in %s", workdir)
	}
	m = startMonkey(d, plan, auditLog)
	err = walkUnderChaos(ctx, d, m)
	m.stop()
	kills, counted, monkeyErr := m.result()
	if err == nil {
		err = monkeyErr
	}
	if err != nil {
		logTails(t, workdir)
		logTails(t, filepath.Dir(workdir))
	}
	require.NoError(t, err, "seed %d (kills so far: %d; logs in %s)", plan.seed, len(kills), workdir)
	r, err := checkChaosOutcome(ctx, d, auditLog)
	r.seed, r.kills, r.counted, r.took, r.real = plan.seed, kills, counted, time.Since(started), d.real
	require.NoError(t, err)
	r.checkReached(plan)
	if len(r.problems) > 0 {
		r.print()
		logTails(t, workdir)
	}
	require.Empty(t, r.problems, "seed %d: %s", plan.seed, strings.Join(r.problems, "; "))
	return r
}

// walkUnderChaos runs the stages of a validated transition with an approval and a Remove step
// while m kills the operator, checking after each stage that no other process died.
func walkUnderChaos(ctx context.Context, d *demo, m *monkey) error {
	stages := []func(context.Context) error{d.applyRuntime, d.initialInstall, d.editApplication, d.changeOverride, d.approveUnderChaos}
	for _, s := range stages {
		if err := s(ctx); err != nil {
			return err
		}
		if err := m.operator().Exited(); err != nil {
			return err
		}
		for _, p := range d.procs[1:] {
			if err := p.Exited(); err != nil {
				return err
			}
		}
		if d.argo != nil {
			if err := d.argo.Exited(); err != nil {
				return err
			}
		}
	}
	return nil
}

// approveUnderChaos approves the rollout awaiting approval, acknowledges the DRA driver's
// restart and waits for the approved rollout to succeed and the runtime to be Ready at it.
func (d *demo) approveUnderChaos(ctx context.Context) error {
	cr, err := waitRuntime(ctx, d.admin, "the rollout awaiting approval", func(cr *aicrv1alpha1.ClusterRuntime) bool {
		return cr.Status.Rollout != ""
	})
	if err != nil {
		return err
	}
	rollout := cr.Status.Rollout
	if err = d.approveRollout(ctx, rollout); err != nil {
		return err
	}
	if err = d.acknowledgeDRARestart(ctx, rollout); err != nil {
		return err
	}
	stage("Roll out the approved transition, then validate it")
	_, err = waitRuntime(ctx, d.admin, "the approved rollout", func(cr *aicrv1alpha1.ClusterRuntime) bool {
		return conditionTrue(cr, aicrv1alpha1.ConditionReady) && cr.Status.ActivePlanDigest == cr.Status.TargetPlanDigest &&
			d.rolloutPhase(ctx, rollout) == aicrv1alpha1.PhaseSucceeded
	})
	return err
}
