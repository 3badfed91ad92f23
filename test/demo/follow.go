package main

import (
	"context"
	"errors"
	"strings"

	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/manager"
)

// followRollouts prints every new status message of every RuntimeRollout until ctx ends: each
// rollout's progress step by step. It reads a watch, not a poll, so no step is missed however
// fast the simulated Argo CD syncs.
func followRollouts(ctx context.Context, cfg *rest.Config) error {
	scheme, err := manager.NewScheme()
	if err != nil {
		return err
	}
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	last := map[string]string{}
	for ctx.Err() == nil {
		w, err := c.Watch(ctx, &aicrv1alpha1.RuntimeRolloutList{})
		if err != nil {
			if errors.Is(ctx.Err(), context.Canceled) {
				return nil
			}
			return err
		}
		for ev := range w.ResultChan() {
			ro, ok := ev.Object.(*aicrv1alpha1.RuntimeRollout)
			if !ok || ev.Type == watch.Deleted {
				continue
			}
			msg := ro.Status.Message
			if msg == "" || msg == last[ro.Name] {
				continue
			}
			last[ro.Name] = msg
			if !strings.Contains(msg, ro.Name) {
				msg = ro.Name + ": " + msg
			}
			progress("%s", msg)
		}
		w.Stop()
	}
	return nil
}
