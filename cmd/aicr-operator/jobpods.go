package main

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/app"
)

// jobPodSettings turns the validated --jobs-* flags into the runner's pod settings.
func jobPodSettings(s app.JobPodSettings) (jobs.PodSettings, error) {
	out := jobs.PodSettings{
		ActiveDeadlineSeconds: s.ActiveDeadlineSeconds, NodeSelector: s.NodeSelector,
		ImagePullSecrets: s.ImagePullSecrets,
	}
	var err error
	if out.Resources.Requests, err = resourceList("requests", s.Resources.Requests); err != nil {
		return out, err
	}
	if out.Resources.Limits, err = resourceList("limits", s.Resources.Limits); err != nil {
		return out, err
	}
	for _, t := range s.Tolerations {
		out.Tolerations = append(out.Tolerations, corev1.Toleration{
			Key: t.Key, Operator: corev1.TolerationOperator(t.Operator), Value: t.Value,
			Effect: corev1.TaintEffect(t.Effect), TolerationSeconds: t.TolerationSeconds,
		})
	}
	return out, nil
}

func resourceList(part string, m map[string]app.Quantity) (corev1.ResourceList, error) {
	if len(m) == 0 {
		return nil, nil
	}
	list := corev1.ResourceList{}
	for name, q := range m {
		v, err := resource.ParseQuantity(string(q))
		if err != nil {
			return nil, fmt.Errorf("--jobs-resources %s %s: %w", part, name, err)
		}
		list[corev1.ResourceName(name)] = v
	}
	return list, nil
}
