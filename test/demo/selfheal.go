package main

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
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
