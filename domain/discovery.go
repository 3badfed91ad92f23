package domain

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Node is the part of a Kubernetes Node that discovery needs.
type Node struct {
	Name   string
	Labels map[string]string
}

// NodeSelector is a placement group's selector (all entries must match).
type NodeSelector map[string]string

// Placement is spec.placement: the system and accelerated node groups.
type Placement struct {
	System      NodeSelector
	Accelerated NodeSelector
}

// Labels that must agree across the accelerated group (one homogeneous
// accelerator and OS profile per cluster, PLAT-1).
var homogeneousLabels = []string{"nvidia.com/gpu.product", "kubernetes.io/os", "node.kubernetes.io/instance-type"}

var (
	labelName  = regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$`)
	labelValue = regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$`)
	dnsPrefix  = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

// CheckSelectors returns InvalidPlacement when a node group's selector is not a valid label
// selector (RES-2): only valid selectors may be sent to the API server.
func CheckSelectors(pl Placement) *Stall {
	for _, group := range []struct {
		name string
		sel  NodeSelector
	}{{"system", pl.System}, {"accelerated", pl.Accelerated}} {
		if err := validSelector(group.sel); err != "" {
			return stallf(StallInvalidPlacement, fmt.Sprintf("placement.%s.nodeSelector: %s", group.name, err))
		}
	}
	return nil
}

// LabelKeys are the Node labels CheckPlacement reads for pl: the keys of both selectors and
// the labels the accelerated group must agree on. The other labels of a Node do not matter.
func (pl Placement) LabelKeys() []string {
	keys := map[string]bool{}
	for _, k := range homogeneousLabels {
		keys[k] = true
	}
	for _, sel := range []NodeSelector{pl.System, pl.Accelerated} {
		for k := range sel {
			keys[k] = true
		}
	}
	return sortedKeys(keys)
}

// CheckPlacement discovers the node groups (RES-2, RES-3) and returns the
// first stall: InvalidPlacement for a selector that is not a valid label
// selector, NodeGroupEmpty when a group matches no Node, PlacementOverlap when
// a Node is in both groups, AcceleratedGroupHeterogeneous when accelerated
// Nodes disagree on a homogeneous label. Nodes that match neither selector do
// not change the outcome, and a Node's labels outside pl.LabelKeys() are not read.
func CheckPlacement(nodes []Node, pl Placement) *Stall {
	if s := CheckSelectors(pl); s != nil {
		return s
	}
	var system, accel []Node
	for _, n := range nodes {
		inSys, inAcc := matches(n, pl.System), matches(n, pl.Accelerated)
		if inSys && inAcc {
			return stallf(StallPlacementOverlap, "node "+n.Name+" matches both the system and the accelerated selector")
		}
		if inSys {
			system = append(system, n)
		}
		if inAcc {
			accel = append(accel, n)
		}
	}
	switch {
	case len(system) == 0:
		return stallf(StallNodeGroupEmpty, "no node matches placement.system.nodeSelector")
	case len(accel) == 0:
		return stallf(StallNodeGroupEmpty, "no node matches placement.accelerated.nodeSelector")
	}
	for _, key := range homogeneousLabels {
		values := map[string]bool{}
		for _, n := range accel {
			values[n.Labels[key]] = true
		}
		if len(values) > 1 {
			return stallf(StallAcceleratedGroupHeterogeneous, fmt.Sprintf(
				"accelerated nodes differ in %s: %s", key, strings.Join(sortedKeys(values), ", ")))
		}
	}
	return nil
}

func validSelector(sel NodeSelector) string {
	if len(sel) == 0 {
		return "at least one entry is required"
	}
	for _, k := range sortedKeys(sel) {
		name, prefix := k, ""
		if i := strings.LastIndexByte(k, '/'); i >= 0 {
			prefix, name = k[:i], k[i+1:]
			if len(prefix) > 253 || !dnsPrefix.MatchString(prefix) {
				return fmt.Sprintf("invalid label key %q", k)
			}
		}
		if !labelName.MatchString(name) {
			return fmt.Sprintf("invalid label key %q", k)
		}
		if !labelValue.MatchString(sel[k]) {
			return fmt.Sprintf("invalid label value %q", sel[k])
		}
	}
	return ""
}

func matches(n Node, sel NodeSelector) bool {
	if len(sel) == 0 {
		return false
	}
	for k, v := range sel {
		if got, ok := n.Labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// SnapshotFacts are the criteria an AICR snapshot measured ("" = not measured).
type SnapshotFacts map[string]string

// CheckSnapshot compares the snapshot with the criteria the runtime declares
// (RES-2): a declared criterion the snapshot did not measure is
// SnapshotIncomplete; a measured value that differs is CriteriaConflict.
func CheckSnapshot(declared map[string]string, measured SnapshotFacts) *Stall {
	for _, k := range sortedKeys(declared) {
		got := measured[k]
		if got == "" {
			return stallf(StallSnapshotIncomplete, fmt.Sprintf("the snapshot did not measure %s", k))
		}
		if !strings.EqualFold(got, declared[k]) {
			return stallf(StallCriteriaConflict, fmt.Sprintf(
				"spec.criteria.%s is %q, the snapshot measured %q", k, declared[k], got))
		}
	}
	return nil
}
