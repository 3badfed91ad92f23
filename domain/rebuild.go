package domain

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/NVIDIA/aicr/ports"
)

// RebuildPlan rebuilds the plan of digest for runtimeUID from the specs the
// engine objects record (ports.DeploymentEngine.Specs), when its plan
// ConfigMap was lost (PLAN-7). Only the specs whose owner records runtimeUID
// and plan digest are used; their positions must be exactly 0 to n-1. The
// plan is SourceRebuilt, without a recipe (HasRecipe false) and without an
// AICR version. It is returned only when its desiredStateDigest equals
// digest; anything else (a release missing or of another runtime, a value,
// chart or policy changed on the engine object, an object written before
// engine objects recorded their plan position) stalls PlanUnreadable: the
// operator never guesses.
func RebuildPlan(runtimeUID, digest string, specs []ports.ReleaseSpec) (*Plan, *Stall) {
	var own []ports.ReleaseSpec
	for _, s := range specs {
		if s.Owner.RuntimeUID == runtimeUID && s.Owner.PlanDigest == digest {
			own = append(own, s)
		}
	}
	refuse := func(format string, args ...any) (*Plan, *Stall) {
		return nil, stallf(StallPlanUnreadable, fmt.Sprintf("plan %s cannot be rebuilt from the engine objects: ", digest)+
			fmt.Sprintf(format, args...)+"; the operator never guesses")
	}
	if len(own) == 0 {
		return refuse("no engine object of runtime %s records it", runtimeUID)
	}
	var unplaced []string
	for _, s := range own {
		if s.Position < 0 {
			unplaced = append(unplaced, s.Ref.String())
		}
	}
	if len(unplaced) > 0 {
		return refuse("engine objects %s record no plan position (written by an older operator)", strings.Join(unplaced, ", "))
	}
	slices.SortStableFunc(own, func(a, b ports.ReleaseSpec) int { return a.Position - b.Position })
	p := &Plan{SchemaVersion: PlanSchemaVersion, RuntimeUID: runtimeUID, Source: SourceRebuilt}
	for i, s := range own {
		switch {
		case s.Position > i:
			return refuse("no engine object records position %d of %d", i, own[len(own)-1].Position+1)
		case s.Position < i:
			return refuse("engine objects %s and %s both record position %d", own[i-1].Ref, s.Ref, s.Position)
		}
		r := Release{
			ID: s.Ref.ID, Namespace: s.Ref.Namespace, Component: s.Component, Kind: s.Kind, Chart: s.Chart,
			ContentDigest: s.ContentDigest, Values: s.Values, Policy: s.Policy, DependsOn: s.DependsOn,
		}
		d, err := Digest(s.Values)
		if err != nil {
			return refuse("values of %s: %v", s.Ref, err)
		}
		r.ValuesDigest = d
		p.Releases = append(p.Releases, r)
	}
	if err := p.seal(); err != nil {
		var se *StallError
		if errors.As(err, &se) {
			return refuse("%s", se.Stall.Message())
		}
		return refuse("%v", err)
	}
	if p.Digest != digest {
		return refuse("their %d releases of runtime %s have digest %s (an engine object changed or a release is missing)",
			len(p.Releases), runtimeUID, p.Digest)
	}
	return p, nil
}
