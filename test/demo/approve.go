package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/adapters/sealer"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/test/chartrender"
)

func (d *demo) changeOverride(ctx context.Context) error {
	stage("Change the overrides, naming components by their AICR aliases: gpuoperator driver.version=580.95.05, awsebscsidriver enabled=false")
	var cr aicrv1alpha1.ClusterRuntime
	if err := d.admin.Get(ctx, client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, &cr); err != nil {
		return err
	}
	// A merge patch, as kubectl patch sends: the operator may still be writing the runtime's
	// status, and an update carrying the resourceVersion just read would then conflict.
	patch := client.MergeFrom(cr.DeepCopy())
	cr.Spec.Overrides = []aicrv1alpha1.Override{
		{Component: "gpuoperator", Path: "driver.version", Value: apiextensionsv1.JSON{Raw: []byte(`"580.95.05"`)}},
		{Component: "awsebscsidriver", Path: "enabled", Value: apiextensionsv1.JSON{Raw: []byte(`false`)}},
	}
	if err := d.admin.Patch(ctx, &cr, patch); err != nil {
		return err
	}
	stage("Resolve the new plan: every release changes and aws-ebs-csi-driver is removed, which needs an approver")
	_, err := waitRuntime(ctx, d.admin, "a rollout awaiting approval", func(cr *aicrv1alpha1.ClusterRuntime) bool {
		return cr.Status.Rollout != "" && cr.Status.TargetPlanDigest != cr.Status.ActivePlanDigest &&
			d.rolloutPhase(ctx, cr.Status.Rollout) == aicrv1alpha1.PhaseAwaitingApproval
	}, domain.StallEngineObjectDrifted) // the hand edit before it, until its rollout writes the release again
	return err
}

func (d *demo) rolloutPhase(ctx context.Context, name string) aicrv1alpha1.Phase {
	var ro aicrv1alpha1.RuntimeRollout
	if err := d.admin.Get(ctx, client.ObjectKey{Name: name}, &ro); err != nil {
		return ""
	}
	return ro.Status.Phase
}

func (d *demo) approve(ctx context.Context) error {
	var cr aicrv1alpha1.ClusterRuntime
	if err := d.admin.Get(ctx, client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, &cr); err != nil {
		return err
	}
	rollout := cr.Status.Rollout
	if d.argo != nil {
		removal, err := d.watchRemoval(ctx)
		if err != nil {
			return err
		}
		defer removal.stop()
		if err = d.failUpgradedPods(ctx); err != nil {
			return err
		}
		if err = d.approveRollout(ctx, rollout); err != nil {
			return err
		}
		if rollout, err = d.stallOnDegraded(ctx, rollout, removal); err != nil {
			return err
		}
	}
	if err := d.approveRollout(ctx, rollout); err != nil {
		return err
	}
	if err := d.acknowledgeDRARestart(ctx, rollout); err != nil {
		return err
	}
	stage("Roll out the approved transition, then validate it")
	_, err := waitRuntime(ctx, d.admin, "the approved rollout", func(cr *aicrv1alpha1.ClusterRuntime) bool {
		return conditionTrue(cr, aicrv1alpha1.ConditionReady) && cr.Status.ActivePlanDigest == cr.Status.TargetPlanDigest &&
			d.rolloutPhase(ctx, cr.Status.Rollout) == aicrv1alpha1.PhaseSucceeded
	})
	if err != nil || d.argo == nil {
		return err
	}
	_, err = printStepTimes(ctx, d.admin, chartrender.FlagValue(d.procs[0].Args(), "--engine-namespace"), "the approved rollout's steps")
	return err
}

// approveRollout shows a rollout with kubectl aicr describe and approves it as the approver.
func (d *demo) approveRollout(ctx context.Context, rollout string) error {
	plugin := filepath.Join(d.binaries, "kubectl-aicr")
	stage("kubectl aicr describe %s", rollout)
	out, err := output(ctx, d.adminKC, plugin, "describe", rollout)
	indent(out)
	if err != nil {
		return err
	}
	stage("kubectl aicr approve %s --as %s", rollout, approverUser)
	out, err = output(ctx, d.adminKC, plugin, "approve", rollout, "--as", approverUser,
		"--expires", "1h", "--reason", "Demo maintenance window")
	indent(out)
	return err
}

func (d *demo) summary(ctx context.Context) error {
	stage("Result")
	for _, r := range []string{"clusterruntimes", "runtimerollouts"} {
		if err := printWide(ctx, d.cp.Config, r); err != nil {
			return err
		}
	}
	if err := printApplications(ctx, d.admin, chartrender.FlagValue(d.procs[0].Args(), "--engine-namespace")); err != nil {
		return err
	}
	if err := d.printEvidence(ctx); err != nil {
		return err
	}
	if d.argo != nil {
		if err := printWorkloads(ctx, d.admin); err != nil {
			return err
		}
		if err := d.printLiveDiff(ctx, chartrender.FlagValue(d.procs[0].Args(), "--engine-namespace")); err != nil {
			return err
		}
	}
	return nil
}

// explore says how to look at the cluster and how the demo ends.
func (d *demo) explore(context.Context) error {
	console.printf("\nExplore with: export KUBECONFIG=%s PATH=%s:$PATH\n", d.adminKC, d.binaries)
	console.printf("  (kubectl get aicrrt,aicrro -o wide; kubectl aicr describe <rollout>; logs in %s)\n", d.workdir)
	if d.keep {
		console.printf("Stop: press Ctrl-C; the demo then stops the operator, the simulators and the control plane.\n")
	} else {
		console.printf("Stop: nothing to do, the demo stops everything as it exits (--keep keeps it running to explore).\n")
	}
	return nil
}

func (d *demo) stop() {
	if d.stopFollowing != nil {
		d.stopFollowing()
		<-d.followed
	}
	for i := len(d.procs) - 1; i >= 0; i-- {
		d.procs[i].Stop()
	}
	if d.argo != nil {
		if err := d.argo.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stop Argo CD:", err)
		}
	}
	if d.cp != nil {
		if err := d.cp.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stop control plane:", err)
		}
	}
	if d.reg != nil {
		d.reg.Close()
	}
}

func signalContext() context.Context {
	ctx, _ := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	return ctx
}

// printEvidence prints where each rollout's deployment-validation evidence is: the manifest
// digest its evidence annotation records, next to the bundles in the runtime registry (RO-10),
// only under the operator's seal (shared.Evidence, with the key the demo reads as cluster admin).
func (d *demo) printEvidence(ctx context.Context) error {
	var list aicrv1alpha1.RuntimeRolloutList
	if err := d.admin.List(ctx, &list); err != nil {
		return err
	}
	seals, err := sealer.Load(ctx, d.admin, d.admin, operatorNamespace)
	if err != nil {
		return err
	}
	repo := strings.TrimPrefix(chartrender.FlagValue(d.procs[0].Args(), "--registry-repository"), "oci://")
	console.printf("    deployment-validation evidence (annotation %s):\n", aicrv1alpha1.AnnotationEvidence)
	for i := range list.Items {
		ro := &list.Items[i]
		ev, err := shared.Evidence(seals, ro)
		switch {
		case err != nil:
			return fmt.Errorf("rollout %s: %w", ro.Name, err)
		case ev == "":
			progress("%s: none", ro.Name)
		default:
			progress("%s: %s/bundles/cluster@%s (sealed by the operator)", ro.Name, repo, ev)
		}
	}
	return nil
}
