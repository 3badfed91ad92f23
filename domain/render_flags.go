package domain

import (
	"encoding/json"
	"sort"
	"strings"
)

// setFlags are the `aicr bundle` flags that layer values over a component's (docs/design/aicr-cli.md
// section 7): spec.overrides become --set-json component:path=value.
var setFlags = map[string]bool{"--set": true, "--set-json": true, "--set-string": true, "--set-file": true}

// renderFlag is one `aicr bundle` flag with its value.
type renderFlag struct{ name, value string }

// parseRenderFlags pairs each flag of a plan's renderFlags with its value ("--name value" or
// "--name=value"); a token that is not a flag is the value of the flag before it.
func parseRenderFlags(flags []string) []renderFlag {
	var out []renderFlag
	for i := 0; i < len(flags); i++ {
		name, value, inline := strings.Cut(flags[i], "=")
		if !inline && i+1 < len(flags) && !strings.HasPrefix(flags[i+1], "--") {
			i++
			value = flags[i]
		}
		out = append(out, renderFlag{name: name, value: value})
	}
	return out
}

// renderDiff is what changed between the render flags of the active and the target plan: the
// values the runtime's own spec layers over AICR's (overrides and placement), which AICR's
// upgrade-check verdict never judges: it compares versions and chart identities only
// (docs/design/aicr-cli.md section 9).
type renderDiff struct {
	// known is false when a plan does not record its render flags (nil renderFlags).
	known bool
	// overrides are the changed value flags, as component:path, sorted and unique.
	overrides []overrideRef
	// placement are the names of the other changed flags (node selectors, tolerations, ...).
	placement []string
	// components are the plans' release components, normalized (componentKey).
	components map[string]bool
}

// overrideRef names one override: the component as the flag names it and its values path.
type overrideRef struct{ component, path string }

func (o overrideRef) String() string { return o.component + ":" + o.path }

// newRenderDiff compares the render flags of two plans holding the releases rels.
func newRenderDiff(active, target []string, rels ...[]Release) renderDiff {
	d := renderDiff{known: active != nil && target != nil, components: map[string]bool{}}
	for _, rs := range rels {
		for _, r := range rs {
			d.components[componentKey(r.Component)] = true
		}
	}
	seenOverride, seenFlag := map[overrideRef]bool{}, map[string]bool{}
	for _, f := range symmetricDifference(parseRenderFlags(active), parseRenderFlags(target)) {
		if !setFlags[f.name] {
			if !seenFlag[f.name] {
				seenFlag[f.name] = true
				d.placement = append(d.placement, f.name)
			}
			continue
		}
		if o := parseSetValue(f.value); !seenOverride[o] {
			seenOverride[o] = true
			d.overrides = append(d.overrides, o)
		}
	}
	sort.Strings(d.placement)
	sort.Slice(d.overrides, func(i, j int) bool { return d.overrides[i].String() < d.overrides[j].String() })
	return d
}

// symmetricDifference returns the flags of a not in b and of b not in a.
func symmetricDifference(a, b []renderFlag) []renderFlag {
	count := map[renderFlag]int{}
	for _, f := range a {
		count[f]++
	}
	for _, f := range b {
		count[f]--
	}
	var out []renderFlag
	for _, f := range append(a, b...) {
		if count[f] != 0 {
			out = append(out, f)
			count[f] = 0
		}
	}
	return out
}

// parseSetValue splits component:path=value. The path ends at the first "=" after which a
// JSON value follows (a key may hold "="), else at the first "=".
func parseSetValue(v string) overrideRef {
	component, rest, _ := strings.Cut(v, ":")
	path, _, _ := strings.Cut(rest, "=")
	for i := strings.IndexByte(rest, '='); i >= 0; {
		if json.Valid([]byte(rest[i+1:])) {
			path = rest[:i]
			break
		}
		next := strings.IndexByte(rest[i+1:], '=')
		if next < 0 {
			break
		}
		i += next + 1
	}
	return overrideRef{component: component, path: path}
}

// componentKey normalizes a component name the way AICR's valueOverrideKeys aliases differ
// from it (gpuoperator for gpu-operator): lower case, without "-" and "_".
func componentKey(c string) string {
	return componentSeparators.Replace(strings.ToLower(c))
}

// componentSeparators drops the separators componentKey ignores; a Replacer is safe for
// concurrent use and builds its tables once.
var componentSeparators = strings.NewReplacer("-", "", "_", "")

// overridesOf returns the changed overrides that may reach component's values: those naming
// it, or an alias of it, and those naming no component of either plan (an alias only AICR
// resolves may name any).
func (d renderDiff) overridesOf(component string) []string {
	key := componentKey(component)
	var out []string
	for _, o := range d.overrides {
		if k := componentKey(o.component); k == key || !d.components[k] {
			out = append(out, o.String())
		}
	}
	return out
}
