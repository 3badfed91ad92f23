package argocd

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/wellknown"
	"github.com/NVIDIA/aicr/ports"
)

// AnnotationReleaseSpec records, as JSON, what a plan release holds beyond
// the Application's own spec: its position in plan order, component, kind,
// upstream chart (repository, name, version, archive digest) and a local
// chart's content digest, so a lost plan can be rebuilt with its digest (PLAN-7).
const AnnotationReleaseSpec = wellknown.Prefix + "release-spec"

// releaseRecord is the value of AnnotationReleaseSpec.
type releaseRecord struct {
	Position      int               `json:"position"`
	Component     string            `json:"component"`
	Kind          ports.ReleaseKind `json:"kind"`
	Chart         chartRecord       `json:"chart"`
	ContentDigest string            `json:"contentDigest"`
}

// chartRecord is the upstream chart of a release; the manifest digest is the
// Application's targetRevision.
type chartRecord struct {
	Repository    string `json:"repository"`
	Name          string `json:"name"`
	Version       string `json:"version"`
	ArchiveDigest string `json:"archiveDigest"`
}

// recordSpec writes AnnotationReleaseSpec from spec; the caller set the annotations map.
func recordSpec(app *argov1.Application, spec ports.ReleaseSpec) error {
	raw, err := json.Marshal(releaseRecord{
		Position: spec.Position, Component: spec.Component, Kind: spec.Kind,
		Chart: chartRecord{
			Repository: spec.Chart.Repository, Name: spec.Chart.Name, Version: spec.Chart.Version,
			ArchiveDigest: spec.Chart.ArchiveDigest,
		},
		ContentDigest: spec.ContentDigest,
	})
	if err != nil {
		return fmt.Errorf("encode release spec: %w", err)
	}
	app.Annotations[AnnotationReleaseSpec] = string(raw)
	return nil
}

// Specs returns the spec every Application carrying the operator's
// managed-by label in the engine namespace records, whatever runtime UID it
// records, sorted by namespace and ID (PLAN-7). An Application without
// AnnotationReleaseSpec (written by an older operator), or whose recorded
// annotations do not parse, has Position -1 and only its identity and owner:
// a rebuild refuses it rather than guessing, and one damaged object does not
// hide the others. It never mutates.
func (e *Engine) Specs(ctx context.Context) ([]ports.ReleaseSpec, error) {
	var apps argov1.ApplicationList
	err := e.c.List(ctx, &apps, client.InNamespace(e.cfg.Namespace),
		client.MatchingLabels{wellknown.LabelManagedBy: wellknown.ManagedByValue})
	if err != nil {
		return nil, wrap("list applications", err)
	}
	out := make([]ports.ReleaseSpec, 0, len(apps.Items))
	for i := range apps.Items {
		spec, err := specOf(&apps.Items[i])
		if err != nil {
			st := observe(&apps.Items[i])
			spec = ports.ReleaseSpec{Ref: st.Ref, Owner: st.Owner, Position: -1}
		}
		out = append(out, spec)
	}
	slices.SortFunc(out, func(a, b ports.ReleaseSpec) int {
		return cmp.Or(cmp.Compare(a.Ref.Namespace, b.Ref.Namespace), cmp.Compare(a.Ref.ID, b.Ref.ID))
	})
	return out, nil
}

// specOf reads the ReleaseSpec an Application records. Recorded fields that
// do not parse are an error: a spec is never guessed.
func specOf(app *argov1.Application) (ports.ReleaseSpec, error) {
	st := observe(app)
	spec := ports.ReleaseSpec{Ref: st.Ref, Owner: st.Owner, Position: -1}
	if raw, ok := app.Annotations[AnnotationReleaseSpec]; ok {
		var rec releaseRecord
		if err := json.Unmarshal([]byte(raw), &rec); err != nil {
			return ports.ReleaseSpec{}, fmt.Errorf("annotation %s: %w", AnnotationReleaseSpec, err)
		}
		spec.Position, spec.Component, spec.Kind, spec.ContentDigest = rec.Position, rec.Component, rec.Kind, rec.ContentDigest
		spec.Chart = ports.ChartSource{
			Repository: rec.Chart.Repository, Name: rec.Chart.Name, Version: rec.Chart.Version,
			ArchiveDigest: rec.Chart.ArchiveDigest,
		}
	}
	if raw, ok := app.Annotations[wellknown.AnnotationPlanGraph]; ok {
		if err := json.Unmarshal([]byte(raw), &spec.DependsOn); err != nil {
			return ports.ReleaseSpec{}, fmt.Errorf("annotation %s: %w", wellknown.AnnotationPlanGraph, err)
		}
		if len(spec.DependsOn) == 0 {
			spec.DependsOn = nil
		}
	}
	if sp := app.Spec.SyncPolicy; sp != nil {
		spec.Policy = ports.EnginePolicy{
			CreateNamespace: slices.Contains(sp.SyncOptions, syncOptionCreateNamespace),
			ServerSideApply: slices.Contains(sp.SyncOptions, syncOptionServerSideApply),
		}
	}
	if src := app.Spec.Source; src != nil {
		spec.Chart.ManifestDigest = src.TargetRevision
		values, err := valuesOf(src.Helm)
		if err != nil {
			return ports.ReleaseSpec{}, err
		}
		spec.Values = values
	}
	return spec, nil
}

// valuesOf decodes what setValues wrote: helm.valuesObject, else the YAML of
// helm.values (which keeps explicit nulls), else no values (an empty map).
func valuesOf(h *argov1.ApplicationSourceHelm) (map[string]any, error) {
	values := map[string]any{}
	switch {
	case h == nil:
	case h.ValuesObject != nil && len(h.ValuesObject.Raw) > 0:
		if err := json.Unmarshal(h.ValuesObject.Raw, &values); err != nil {
			return nil, fmt.Errorf("helm.valuesObject: %w", err)
		}
	case h.Values != "":
		if err := yaml.Unmarshal([]byte(h.Values), &values); err != nil {
			return nil, fmt.Errorf("helm.values: %w", err)
		}
	}
	if values == nil {
		values = map[string]any{}
	}
	return values, nil
}
