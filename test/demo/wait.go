package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
)

// pollInterval is how often the demo looks at the cluster while it waits.
const pollInterval = 250 * time.Millisecond

// poll calls done until it reports true, fails or ctx ends.
func poll(ctx context.Context, done func() (bool, error)) error {
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	for {
		ok, err := done()
		if err != nil || ok {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// waitRuntime polls the ClusterRuntime until want reports true and fails early when the
// runtime stalls for another reason than AwaitingApproval or one of tolerated (stalls the
// walkthrough made on purpose; followRollouts prints the progress on the way).
func waitRuntime(ctx context.Context, c client.Client, what string, want func(*aicrv1alpha1.ClusterRuntime) bool,
	tolerated ...domain.StallReason) (*aicrv1alpha1.ClusterRuntime, error) {
	tolerated = append(tolerated, domain.StallAwaitingApproval)
	var cr aicrv1alpha1.ClusterRuntime
	err := poll(ctx, func() (bool, error) {
		if err := c.Get(ctx, client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, &cr); err != nil {
			return false, err
		}
		if want(&cr) {
			return true, nil
		}
		if s := meta.FindStatusCondition(cr.Status.Conditions, aicrv1alpha1.ConditionStalled); s != nil &&
			s.Status == metav1.ConditionTrue && !slices.Contains(tolerated, domain.StallReason(s.Reason)) {
			return false, fmt.Errorf("the runtime stalled while waiting for %s: %s: %s", what, s.Reason, s.Message)
		}
		return false, nil
	})
	if err != nil {
		return nil, fmt.Errorf("waiting for %s: %w", what, err)
	}
	return &cr, nil
}

func conditionTrue(cr *aicrv1alpha1.ClusterRuntime, t string) bool {
	return meta.IsStatusConditionTrue(cr.Status.Conditions, t)
}

func decodeYAML(raw []byte) (*unstructured.Unstructured, error) {
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(raw, &obj.Object); err != nil {
		return nil, err
	}
	return obj, nil
}
