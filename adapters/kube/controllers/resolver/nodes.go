package resolver

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/NVIDIA/aicr/domain"
)

// nodePage is how many Nodes one list request of discovery returns.
const nodePage = 500

// nodeGroups discovers the node groups from the API server, not from a cache of every Node,
// which would grow with the fleet: the operator's cache holds a Node as its name
// and a digest of its labels only (manager.New), enough to tell that labels changed. Each
// discovery lists, page by page, the Nodes each selector matches and keeps only the labels
// domain.CheckPlacement reads; its outcome is reused until a Node is added, relabelled or
// deleted or the placement changes.
type nodeGroups struct {
	// changes counts the Node events that can change a discovery outcome.
	changes atomic.Uint64

	mu sync.Mutex
	// last is the latest discovery: the placement, the count of changes before its lists, and
	// its outcome.
	last *discovery
}

type discovery struct {
	placement domain.Placement
	changes   uint64
	stall     *domain.Stall
}

// changed is the predicate of the resolver's Node watch: a Node added or deleted, or one whose
// labels changed, counts as a change and triggers a resolution.
func (g *nodeGroups) changed() predicate.Predicate {
	labels := predicate.LabelChangedPredicate{}
	count := func(ok bool) bool {
		if ok {
			g.changes.Add(1)
		}
		return ok
	}
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return count(true) },
		DeleteFunc:  func(event.DeleteEvent) bool { return count(true) },
		UpdateFunc:  func(e event.UpdateEvent) bool { return count(labels.Update(e)) },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}

// check returns domain.CheckPlacement's outcome for pl over the Nodes reader lists.
func (g *nodeGroups) check(ctx context.Context, reader client.Reader, pl domain.Placement) (*domain.Stall, error) {
	if s := domain.CheckSelectors(pl); s != nil {
		return s, nil
	}
	changes := g.changes.Load()
	g.mu.Lock()
	last := g.last
	g.mu.Unlock()
	if last != nil && last.changes == changes && samePlacement(last.placement, pl) {
		return last.stall, nil
	}
	nodes, err := listGroups(ctx, reader, pl)
	if err != nil {
		return nil, err
	}
	stall := domain.CheckPlacement(nodes, pl)
	g.mu.Lock()
	g.last = &discovery{placement: pl, changes: changes, stall: stall}
	g.mu.Unlock()
	return stall, nil
}

func samePlacement(a, b domain.Placement) bool {
	return maps.Equal(a.System, b.System) && maps.Equal(a.Accelerated, b.Accelerated)
}

// listGroups lists, as metadata, the Nodes of both groups (each once) with only the labels
// discovery reads.
func listGroups(ctx context.Context, reader client.Reader, pl domain.Placement) ([]domain.Node, error) {
	keys := pl.LabelKeys()
	seen := map[string]bool{}
	var nodes []domain.Node
	for _, sel := range []domain.NodeSelector{pl.System, pl.Accelerated} {
		for next := ""; ; {
			list := &metav1.PartialObjectMetadataList{}
			list.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("NodeList"))
			if err := reader.List(ctx, list, client.MatchingLabels(sel), client.Limit(nodePage), client.Continue(next)); err != nil {
				return nil, fmt.Errorf("list nodes: %w", err)
			}
			for _, n := range list.Items {
				if seen[n.Name] {
					continue
				}
				seen[n.Name] = true
				labels := make(map[string]string, len(keys))
				for k, v := range n.Labels {
					if slices.Contains(keys, k) {
						labels[k] = v
					}
				}
				nodes = append(nodes, domain.Node{Name: n.Name, Labels: labels})
			}
			if next = list.Continue; next == "" {
				break
			}
		}
	}
	return nodes, nil
}
