package domain

import (
	"strings"

	"github.com/NVIDIA/aicr/ports"
)

// valuesJudge decides the values changes of a transition's Upgrades and Installs.
type valuesJudge struct {
	diff renderDiff
	// version holds the components whose chart version changes (versionChanges).
	version map[string]bool
	// install holds the target plan's overrides, which an Install step installs with; empty
	// when the initial install waives them or the plan records no render flags.
	install renderDiff
}

// installChange says why installing component needs an approver: the overrides of the target
// plan that may reach its values, which AICR rendered but no approver has seen. "" when none
// may reach it.
func (v valuesJudge) installChange(component string) string {
	if paths := v.install.overridesOf(component); len(paths) > 0 {
		return "installed with overrides: " + strings.Join(paths, ", ")
	}
	return ""
}

// activeReleases returns the releases of the active plan, nil for an initial install.
func activeReleases(active *Plan) []Release {
	if active == nil {
		return nil
	}
	return active.Releases
}

// valuesChange says why the values change of a release upgraded from old to cur needs an
// approver whatever AICR's upgrade-check verdict says, or "" when its values did not change
// or the verdict covers the change. The verdict judges a component's version and chart
// identity, never values (docs/design/aicr-cli.md section 9), so it covers only the values AICR itself
// renders for the new version: a change with nothing changed by the runtime's spec and with a
// chart version change of the component (versionChanged). Anything else is named:
//   - values changed by overrides: the changed spec.overrides that may reach the release
//     (its component, an alias of it, or a component of neither plan, which an alias only AICR
//     resolves may be);
//   - values changed by placement flags: changed node selectors, tolerations and other render
//     flags, which layer values over every component;
//   - values changed while a plan records no render flags (a rebuilt plan): nothing tells
//     what changed them;
//   - values changed without a chart version change: nothing for the verdict to cover.
func (d renderDiff) valuesChange(old, cur Release, versionChanged bool) string {
	od, err1 := valuesDigest(old)
	cd, err2 := valuesDigest(cur)
	if od == cd && err1 == nil && err2 == nil {
		return ""
	}
	if !d.known {
		return "values changed and a plan records no render flags, so overrides may have changed them"
	}
	var why []string
	if paths := d.overridesOf(cur.Component); len(paths) > 0 {
		why = append(why, "values changed by overrides: "+strings.Join(paths, ", "))
	}
	if len(d.placement) > 0 {
		why = append(why, "values changed by placement flags: "+strings.Join(d.placement, ", "))
	}
	if len(why) == 0 && !versionChanged {
		why = append(why, "values changed without a chart version change for AICR's verdict to cover")
	}
	return strings.Join(why, "; ")
}

// versionChanges returns the components a release of which changes chart version between the
// active and the target plan: the changes AICR's upgrade-check judges.
func versionChanges(active map[ports.ReleaseRef]Release, target []Release) map[string]bool {
	out := map[string]bool{}
	for _, r := range target {
		if old, ok := active[r.Ref()]; ok && old.Chart.Version != r.Chart.Version {
			out[r.Component] = true
		}
	}
	return out
}
