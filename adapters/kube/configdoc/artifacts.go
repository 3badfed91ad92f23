package configdoc

import (
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/domain"
)

// artifactHeader is the header every AICR artifact carries.
type artifactHeader struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Version string `json:"version"`
	} `json:"metadata"`
}

type snapshotDoc struct {
	artifactHeader `json:",inline"`
	Measurements   []struct {
		Type     string `json:"type"`
		Subtypes []struct {
			Subtype string         `json:"subtype"`
			Data    map[string]any `json:"data"`
		} `json:"subtypes"`
	} `json:"measurements"`
}

type recipeDoc struct {
	artifactHeader `json:",inline"`
	ComponentRefs  []struct {
		Name string `json:"name"`
	} `json:"componentRefs"`
}

// accelerators are AICR accelerator names, longest first so gb200 wins over b200.
var accelerators = []string{"rtx-pro-6000", "gb300", "gb200", "vr200", "h200", "h100", "b200", "a100", "l40s", "l40"}

// providers maps a node providerID scheme to the AICR service (AICR v1 detects the service from it).
var providers = map[string]string{"aws://": "eks", "gce://": "gke", "azure://": "aks", "oci://": "oke"}

// checkArtifact refuses an artifact that is not an AICR v1 artifact of kind (RES-5).
func checkArtifact(a artifactHeader, kind string) *domain.Stall {
	if !strings.HasPrefix(a.APIVersion, "aicr.run/") || (a.Kind != "" && a.Kind != kind) {
		return domain.ArtifactKindUnsupported(kind, a.APIVersion, a.Kind)
	}
	return domain.CheckAICRArtifact(strings.ToLower(kind), a.Metadata.Version)
}

// SnapshotFacts parses an AICR v1 snapshot and returns the criteria it measured: service from
// the Kubernetes server version suffix or the node provider, accelerator from the GPU product,
// os from OS.release.ID. A measurement AICR's collectors skipped leaves its criterion out.
func SnapshotFacts(data []byte) (domain.SnapshotFacts, *domain.Stall, error) {
	var s snapshotDoc
	if err := yaml.Unmarshal(data, &s); err != nil {
		return nil, nil, fmt.Errorf("parse snapshot: %w", err)
	}
	if st := checkArtifact(s.artifactHeader, "Snapshot"); st != nil {
		return nil, st, nil
	}
	facts := domain.SnapshotFacts{}
	for _, m := range s.Measurements {
		for _, sub := range m.Subtypes {
			measure(facts, m.Type, sub.Subtype, sub.Data)
		}
	}
	return facts, nil, nil
}

func measure(facts domain.SnapshotFacts, typ, subtype string, data map[string]any) {
	str := func(k string) string { s, _ := data[k].(string); return strings.ToLower(s) }
	switch typ + "." + subtype {
	case "K8s.server", "K8s.node":
		for _, v := range []string{str("version"), str("provider")} {
			for _, svc := range []string{"eks", "gke", "aks", "oke"} {
				if strings.Contains(v, "-"+svc) || strings.HasPrefix(v, svc) {
					facts["service"] = svc
				}
			}
		}
		for scheme, svc := range providers {
			if strings.HasPrefix(str("providerID"), scheme) {
				facts["service"] = svc
			}
		}
	case "GPU.hardware", "GPU.smi":
		for _, k := range []string{"product", "model", "gpu.product"} {
			if acc := accelerator(str(k)); acc != "" {
				facts["accelerator"] = acc
			}
		}
	case "OS.release":
		if id := str("ID"); id != "" {
			facts["os"] = id
		}
	}
}

func accelerator(product string) string {
	for _, a := range accelerators {
		if strings.Contains(product, a) {
			return a
		}
	}
	return ""
}

// RecipeComponents parses an AICR recipe and returns its component names.
func RecipeComponents(data []byte) (map[string]bool, *domain.Stall, error) {
	var r recipeDoc
	if err := yaml.Unmarshal(data, &r); err != nil {
		return nil, nil, fmt.Errorf("parse recipe: %w", err)
	}
	if st := checkArtifact(r.artifactHeader, "RecipeResult"); st != nil {
		return nil, st, nil
	}
	out := map[string]bool{}
	for _, c := range r.ComponentRefs {
		out[c.Name] = true
	}
	return out, nil, nil
}
