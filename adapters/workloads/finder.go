// Package workloads finds the protected workloads a disruptive rollout step waits for
// (ports.WorkloadFinder) by reading Pods and Nodes from the API server.
package workloads

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/ports"
)

// Finder reads Pods and Nodes straight from the API server: Pods finishing are not watched,
// and caching every Pod of a large cluster to answer a question asked before a few steps
// would cost more memory than the answer is worth.
type Finder struct {
	reader client.Reader
}

// New returns a Finder over reader (the manager's API reader).
func New(reader client.Reader) *Finder { return &Finder{reader: reader} }

var _ ports.WorkloadFinder = (*Finder)(nil)

// Running implements ports.WorkloadFinder.
func (f *Finder) Running(ctx context.Context, q ports.WorkloadQuery) ([]ports.Workload, error) {
	pods, err := labels.Parse(q.PodSelector)
	if err != nil {
		return nil, fmt.Errorf("protected pod selector %q: %w", q.PodSelector, err)
	}
	nodes, err := f.nodes(ctx, q.NodeSelector)
	if err != nil {
		return nil, err
	}
	namespaces := q.Namespaces
	if len(namespaces) == 0 {
		namespaces = []string{""}
	}
	var out []ports.Workload
	for _, ns := range namespaces {
		var list corev1.PodList
		if err := f.reader.List(ctx, &list, client.InNamespace(ns), client.MatchingLabelsSelector{Selector: pods}); err != nil {
			return nil, fmt.Errorf("list protected pods: %w", err)
		}
		for i := range list.Items {
			p := &list.Items[i]
			if nodes[p.Spec.NodeName] && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
				out = append(out, ports.Workload{Namespace: p.Namespace, Name: p.Name, Node: p.Spec.NodeName})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// nodes returns the names of the nodes selector selects.
func (f *Finder) nodes(ctx context.Context, selector map[string]string) (map[string]bool, error) {
	var list corev1.NodeList
	if err := f.reader.List(ctx, &list, client.MatchingLabels(selector)); err != nil {
		return nil, fmt.Errorf("list accelerated nodes: %w", err)
	}
	names := make(map[string]bool, len(list.Items))
	for _, n := range list.Items {
		names[n.Name] = true
	}
	return names, nil
}
