package domain

import (
	"slices"
	"sort"
	"strings"

	"github.com/NVIDIA/aicr/ports"
)

// nodeAgentComponents are the AICR components that run node-level agents on the accelerated
// nodes: a change to one restarts what the training jobs there run on.
var nodeAgentComponents = map[string]string{
	"gpu-operator":              "GPU driver, container toolkit and device plugin",
	"network-operator":          "network drivers and device plugins",
	"nvidia-dra-driver-gpu":     "GPU DRA kubelet plugin",
	"aws-efa":                   "EFA device plugin",
	"skyhook-operator":          "node tuning",
	"skyhook-customizations":    "node tuning",
	"nodewright-operator":       "node tuning",
	"nodewright-customizations": "node tuning",
}

// MaxDisruptionLength bounds a step's Disruption (a values path can be long).
const MaxDisruptionLength = 256

// DisruptionRules decide which steps of a transition may disrupt the accelerated nodes.
type DisruptionRules struct {
	// AcceleratedSelector is the accelerated node group's nodeSelector: a release whose values
	// select it is placed on the accelerated nodes.
	AcceleratedSelector map[string]string
	// Disruptive names components treated as disruptive besides those detected.
	Disruptive []string
	// Exempt names components never treated as disruptive.
	Exempt []string
}

// markDisruptive records, on every step that may disrupt the accelerated nodes, why. Verify
// changes nothing and never disrupts; an exempt component never does either. Otherwise a step
// is disruptive when the rules name its component, its component runs node-level agents,
// AICR's upgrade record asks for manual steps, or its release is placed on the accelerated
// node group (the release of the active plan for a Remove).
func markDisruptive(steps []Step, target, active *Plan, rules DisruptionRules) {
	for i := range steps {
		s := &steps[i]
		if s.Operation == OpVerify || slices.Contains(rules.Exempt, s.Component) {
			continue
		}
		plan := target
		if s.Operation == OpRemove {
			plan = active
		}
		if s.Disruption = disruption(*s, plan, rules); len(s.Disruption) > MaxDisruptionLength {
			s.Disruption = strings.ToValidUTF8(s.Disruption[:MaxDisruptionLength], "")
		}
	}
}

func disruption(s Step, plan *Plan, rules DisruptionRules) string {
	switch agents, ok := nodeAgentComponents[s.Component]; {
	case slices.Contains(rules.Disruptive, s.Component):
		return "the change policy names " + s.Component + " disruptive"
	case ok:
		return s.Component + " runs node-level agents on the accelerated nodes (" + agents + ")"
	case s.Assessment == ports.VerdictManual:
		return "AICR's upgrade record for " + s.Component + " asks for manual steps"
	}
	if plan == nil || len(rules.AcceleratedSelector) == 0 {
		return ""
	}
	for _, r := range plan.Releases {
		if r.Ref() == s.Release {
			if path := selectingPath(r.Values, rules.AcceleratedSelector, ""); path != "" {
				return "its values place it on the accelerated node group (" + path + ")"
			}
		}
	}
	return ""
}

// selectingPath returns the first values path, in key order, of a map that holds every entry
// of selector: a nodeSelector that places the release's pods on those nodes.
func selectingPath(v any, selector map[string]string, path string) string {
	switch x := v.(type) {
	case map[string]any:
		if holdsSelector(x, selector) {
			return strings.TrimPrefix(path, ".")
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if p := selectingPath(x[k], selector, path+"."+k); p != "" {
				return p
			}
		}
	case []any:
		for _, e := range x {
			if p := selectingPath(e, selector, path+"[]"); p != "" {
				return p
			}
		}
	}
	return ""
}

func holdsSelector(m map[string]any, selector map[string]string) bool {
	for k, want := range selector {
		if got, ok := m[k].(string); !ok || got != want {
			return false
		}
	}
	return true
}
