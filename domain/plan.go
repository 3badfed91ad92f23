package domain

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/NVIDIA/aicr/ports"
)

// Plan bounds (PLAN-2, PLAN-3).
const (
	// PlanSchemaVersion is the plan document schema this operator writes: schema 2 keeps each
	// release's values in the plan's values ConfigMap (PLAN-3), schema 1 kept them inline.
	PlanSchemaVersion = 2
	// OldestPlanSchemaVersion is the oldest plan document schema this operator still reads.
	OldestPlanSchemaVersion = 1
	// MaxReleases is the largest number of releases a plan may hold.
	MaxReleases = 128
	// MaxReleaseIDLength is Helm's release-name limit.
	MaxReleaseIDLength = 53
	// MaxPlanBytes is the largest encoded plan, values included (one ConfigMap).
	MaxPlanBytes = 1 << 20
)

// PlanSource says how a plan was obtained (PLAN-5).
type PlanSource string

const (
	// SourceResolved is a plan resolved by AICR Jobs (it has a recipe).
	SourceResolved PlanSource = "resolved"
	// SourceRebuilt is a plan rebuilt from live engine objects (no recipe).
	SourceRebuilt PlanSource = "rebuilt"
)

// Release is one release of a plan: what the engine deploys for it.
// ValuesDigest caches Digest(Values) (BuildPlan sets it); code that changes
// Values must recompute or clear it.
type Release struct {
	ID            string             `json:"id"`
	Namespace     string             `json:"namespace"`
	Component     string             `json:"component"`
	Kind          ports.ReleaseKind  `json:"kind"`
	Chart         ports.ChartSource  `json:"chart"`
	ContentDigest string             `json:"contentDigest,omitempty"`
	Values        map[string]any     `json:"values"`
	ValuesDigest  string             `json:"valuesDigest,omitempty"`
	Policy        ports.EnginePolicy `json:"policy"`
	DependsOn     []string           `json:"dependsOn,omitempty"`
}

// Ref returns the release's identity.
func (r Release) Ref() ports.ReleaseRef { return ports.ReleaseRef{ID: r.ID, Namespace: r.Namespace} }

// Plan is the desired state of the runtime: releases in deployment order with
// their dependency graph. Build one with BuildPlan; Digest is the
// desiredStateDigest (PLAN-4) and identifies the plan everywhere (PLAT-6).
type Plan struct {
	SchemaVersion int        `json:"schemaVersion"`
	Digest        string     `json:"desiredStateDigest"`
	RuntimeUID    string     `json:"runtimeUID"`
	Source        PlanSource `json:"source"`
	AICRVersion   string     `json:"aicrVersion"`
	HasRecipe     bool       `json:"hasRecipe"`
	Releases      []Release  `json:"releases"`
}

// PlanInput is what BuildPlan turns into a Plan.
type PlanInput struct {
	RuntimeUID string
	Source     PlanSource
	Bundle     ports.Bundle
}

// BuildPlan validates a bundle and builds its plan. Refusals are returned as
// a *StallError: AICRArtifactUnsupported for a legacy layout, an AICR
// version outside SupportedAICRRange or a release ID that is not a Helm
// release name, ContentTooLarge for more than
// MaxReleases releases, an ID longer than MaxReleaseIDLength or an encoded
// plan larger than MaxPlanBytes, ChartSourceUnsupported for a repository that
// is neither https:// nor oci://. A dependency on a component that is not in
// the bundle wraps ErrUnknownDependency; a cycle wraps ErrDependencyCycle.
func BuildPlan(in PlanInput) (*Plan, error) {
	b := in.Bundle
	if b.Layout != ports.LayoutV1 {
		return nil, stallErr(StallAICRArtifactUnsupported,
			fmt.Sprintf("bundle layout %q (AICR %q) is not supported, re-render with AICR %s", b.Layout, b.AICRVersion, SupportedAICRRange))
	}
	if s := CheckAICRArtifact("bundle", b.AICRVersion); s != nil {
		return nil, &StallError{Stall: *s}
	}
	if len(b.Releases) > MaxReleases {
		return nil, stallErr(StallContentTooLarge,
			fmt.Sprintf("bundle has %d releases, at most %d fit a plan", len(b.Releases), MaxReleases))
	}
	p := &Plan{
		SchemaVersion: PlanSchemaVersion, RuntimeUID: in.RuntimeUID, Source: in.Source,
		AICRVersion: b.AICRVersion, HasRecipe: in.Source == SourceResolved,
	}
	if p.Source == "" {
		p.Source, p.HasRecipe = SourceResolved, true
	}
	byComponent := map[string][]string{}
	for _, br := range b.Releases {
		if err := checkRelease(br); err != nil {
			return nil, err
		}
		r := Release{
			ID: br.Name, Namespace: br.Namespace, Component: br.Component, Kind: br.Kind,
			Chart: br.Chart, ContentDigest: br.ContentDigest, Values: br.Values,
			Policy: ports.EnginePolicy{CreateNamespace: br.CreateNamespace, ServerSideApply: true},
		}
		d, err := Digest(br.Values)
		if err != nil {
			return nil, fmt.Errorf("values of %s: %w", br.Name, err)
		}
		r.ValuesDigest = d
		if prev := byComponent[br.Component]; len(prev) > 0 {
			r.DependsOn = append(r.DependsOn, prev[len(prev)-1])
		}
		byComponent[br.Component] = append(byComponent[br.Component], br.Name)
		p.Releases = append(p.Releases, r)
	}
	if err := linkComponents(p, b.Releases, byComponent); err != nil {
		return nil, err
	}
	if _, err := topoOrder(p.Releases); err != nil {
		return nil, err
	}
	return p, p.seal()
}

// helmReleaseName is what Helm accepts as a release name (and the RuntimeRollout CRD as a
// release ID): lowercase DNS labels joined by dots.
var helmReleaseName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// IsHelmReleaseName reports whether name is a Helm release name of at most
// MaxReleaseIDLength characters.
func IsHelmReleaseName(name string) bool {
	return len(name) <= MaxReleaseIDLength && helmReleaseName.MatchString(name)
}

func checkRelease(br ports.BundleRelease) error {
	if len(br.Name) > MaxReleaseIDLength {
		return stallErr(StallContentTooLarge,
			fmt.Sprintf("release ID %q has %d characters, Helm allows %d", br.Name, len(br.Name), MaxReleaseIDLength))
	}
	if !helmReleaseName.MatchString(br.Name) {
		return stallErr(StallAICRArtifactUnsupported,
			fmt.Sprintf("release ID %q is not a Helm release name (lowercase letters, digits, - and . only)", br.Name))
	}
	if br.Kind == ports.KindUpstream && !strings.HasPrefix(br.Chart.Repository, "https://") &&
		!strings.HasPrefix(br.Chart.Repository, "oci://") {
		return stallErr(StallChartSourceUnsupported,
			fmt.Sprintf("release %s: chart repository %q is neither https:// nor oci://", br.Name, br.Chart.Repository))
	}
	return nil
}

// linkComponents adds, for every release that starts a component, an edge to
// the last release of each component it depends on.
func linkComponents(p *Plan, brs []ports.BundleRelease, byComponent map[string][]string) error {
	first := map[string]bool{}
	for i, br := range brs {
		if first[br.Component] {
			continue
		}
		first[br.Component] = true
		for _, dep := range br.DependsOnComponents {
			rels, ok := byComponent[dep]
			if !ok {
				return fmt.Errorf("release %s depends on component %q: %w", br.Name, dep, ErrUnknownDependency)
			}
			p.Releases[i].DependsOn = append(p.Releases[i].DependsOn, rels[len(rels)-1])
		}
	}
	return nil
}

// seal checks the encoded size and computes the digest.
func (p *Plan) seal() error {
	doc, err := CanonicalJSON(p.document())
	if err != nil {
		return fmt.Errorf("encode plan: %w", err)
	}
	if len(doc) > MaxPlanBytes {
		return stallErr(StallContentTooLarge,
			fmt.Sprintf("encoded plan has %d bytes, a ConfigMap holds at most %d", len(doc), MaxPlanBytes))
	}
	p.Digest, err = DesiredStateDigest(p.Releases)
	return err
}

// document is the plan as stored (without the digest itself).
func (p *Plan) document() map[string]any {
	return map[string]any{
		"schemaVersion": int64(p.SchemaVersion), "runtimeUID": p.RuntimeUID, "source": string(p.Source),
		"aicrVersion": p.AICRVersion, "releases": digestReleases(p.Releases, true),
	}
}

// Release returns the release with the given identity.
func (p *Plan) Release(ref ports.ReleaseRef) (Release, bool) {
	for _, r := range p.Releases {
		if r.Ref() == ref {
			return r, true
		}
	}
	return Release{}, false
}

// ReleaseSpec returns what the engine is given for the release ref of the
// plan: its position in plan order and everything else a plan can be rebuilt
// from (PLAN-7), recorded with owner. A release the plan does not hold has
// position -1.
func (p *Plan) ReleaseSpec(ref ports.ReleaseRef, owner ports.ReleaseOwner) ports.ReleaseSpec {
	for i, r := range p.Releases {
		if r.Ref() == ref {
			return ports.ReleaseSpec{
				Ref: ref, Position: i, Component: r.Component, Kind: r.Kind, Chart: r.Chart,
				ContentDigest: r.ContentDigest, Values: r.Values, Policy: r.Policy, DependsOn: r.DependsOn, Owner: owner,
			}
		}
	}
	return ports.ReleaseSpec{Ref: ref, Position: -1, Owner: owner}
}
