package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/test/chartrender"
)

// selfHealed is the stand-in Deployment the walkthrough edits by hand to show Argo CD's self-heal.
var selfHealed = client.ObjectKey{Namespace: "gpu-operator", Name: "gpu-operator"}

// selfHeal edits a live Deployment of the real Argo CD's install by hand (3 replicas instead of
// the chart's 1) and waits until Argo CD, which the operator's Applications tell to self-heal,
// puts it back. With the stand-in Argo CD there is nothing live to edit.
func (d *demo) selfHeal(ctx context.Context) error {
	if d.argo == nil {
		return nil
	}
	if err := d.checkHandEdit(ctx); err != nil {
		return err
	}
	stage("Edit a live Deployment by hand: Argo CD self-heals it, as the operator's Applications ask")
	patch := []byte(`{"spec":{"replicas":3}}`)
	target := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: selfHealed.Namespace, Name: selfHealed.Name}}
	if err := d.admin.Patch(ctx, target, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("edit Deployment %s: %w", selfHealed, err)
	}
	edited := time.Now()
	progress("$ kubectl patch deployment -n %s %s -p '%s'", selfHealed.Namespace, selfHealed.Name, patch)
	var dep appsv1.Deployment
	err := poll(ctx, func() (bool, error) {
		if err := d.admin.Get(ctx, selfHealed, &dep); err != nil {
			return false, err
		}
		return ptr.Deref(dep.Spec.Replicas, 1) == 1, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for Argo CD to self-heal Deployment %s: %w", selfHealed, err)
	}
	progress("Deployment %s: 3 replicas by hand, Argo CD restored the chart's 1 after %s", selfHealed, time.Since(edited).Round(time.Second))
	// The runtime reports the drift while Argo CD heals it, then is Ready again.
	_, err = waitRuntime(ctx, d.admin, "the runtime to be Ready after the self-heal", func(cr *aicrv1alpha1.ClusterRuntime) bool {
		return conditionTrue(cr, aicrv1alpha1.ConditionReady)
	})
	return err
}

// handEdited is the Application the walkthrough edits by hand before the approved rollout, and
// handParameter the Helm parameter nobody rendered that it adds.
const (
	handEdited    = "kai-scheduler.kai-scheduler"
	handParameter = "handEdited"
)

// editApplication adds a Helm parameter to one Application by hand and waits until Argo CD
// rendered it into the live values. The approved rollout's write of that release removes it
// again (checkHandEdit): spec.source is the operator's whole.
func (d *demo) editApplication(ctx context.Context) error {
	if d.argo == nil {
		return nil
	}
	stage("Edit an Application's Helm values by hand: Argo CD renders the parameter, the runtime reports the drift until the operator's next write")
	ns := chartrender.FlagValue(d.procs[0].Args(), "--engine-namespace")
	app := &unstructured.Unstructured{}
	app.SetGroupVersionKind(applicationGVK)
	app.SetNamespace(ns)
	app.SetName(handEdited)
	patch := fmt.Appendf(nil, `{"spec":{"source":{"helm":{"parameters":[{"name":%q,"value":"true"}]}}}}`, handParameter)
	if err := d.admin.Patch(ctx, app, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("edit Application %s: %w", handEdited, err)
	}
	progress("$ kubectl patch application -n %s %s --type merge -p '%s'", ns, handEdited, patch)
	if err := poll(ctx, func() (bool, error) { return d.liveValueSet(ctx) }); err != nil {
		return fmt.Errorf("waiting for Argo CD to render the hand-edited parameter: %w", err)
	}
	progress("the live values of %s hold %s=true", handEdited, handParameter)
	// The runtime judges the Application against the plan, not against itself: it is no longer
	// the spec the active plan renders, and no rollout is there to write it again.
	var cr aicrv1alpha1.ClusterRuntime
	if err := poll(ctx, func() (bool, error) {
		err := d.admin.Get(ctx, client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, &cr)
		s := meta.FindStatusCondition(cr.Status.Conditions, aicrv1alpha1.ConditionStalled)
		return s != nil && s.Reason == string(domain.StallEngineObjectDrifted), err
	}); err != nil {
		return fmt.Errorf("waiting for the runtime to report the hand-edited Application drifted: %w", err)
	}
	s := meta.FindStatusCondition(cr.Status.Conditions, aicrv1alpha1.ConditionStalled)
	progress("runtime Stalled=%s %s: %s", s.Status, s.Reason, s.Message)
	return nil
}

// checkHandEdit asserts the approved rollout's write of the hand-edited Application removed the
// parameter, from the Application and, through Argo CD, from the live values.
func (d *demo) checkHandEdit(ctx context.Context) error {
	if d.argo == nil {
		return nil
	}
	app := &unstructured.Unstructured{}
	app.SetGroupVersionKind(applicationGVK)
	key := client.ObjectKey{Namespace: chartrender.FlagValue(d.procs[0].Args(), "--engine-namespace"), Name: handEdited}
	err := poll(ctx, func() (bool, error) {
		if err := d.admin.Get(ctx, key, app); err != nil {
			return false, err
		}
		params, _, _ := unstructured.NestedSlice(app.Object, "spec", "source", "helm", "parameters")
		set, err := d.liveValueSet(ctx)
		return len(params) == 0 && !set, err
	})
	if err != nil {
		return fmt.Errorf("waiting for the operator's write to remove the hand-edited parameter: %w", err)
	}
	progress("the operator's write of %s removed the hand-edited %s, from the Application and the live values", handEdited, handParameter)
	return nil
}

// liveValueSet reports whether the live values of the hand-edited release hold handParameter.
func (d *demo) liveValueSet(ctx context.Context) (bool, error) {
	var cm corev1.ConfigMap
	if err := d.admin.Get(ctx, client.ObjectKey{Namespace: "kai-scheduler", Name: "kai-scheduler-values"}, &cm); err != nil {
		return false, client.IgnoreNotFound(err)
	}
	var values map[string]any
	if err := json.Unmarshal([]byte(cm.Data["values.json"]), &values); err != nil {
		return false, err
	}
	_, ok := values[handParameter]
	return ok, nil
}
