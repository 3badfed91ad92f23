package configdoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/NVIDIA/aicr/domain"
)

// Data keys and name prefixes of the operator's ConfigMaps.
const (
	// PlanKey is the data key of the plan document in a plan ConfigMap.
	PlanKey = "plan.json"
	// RecipeKey is the data key of the recipe in a recipe ConfigMap.
	RecipeKey = "recipe.json"
	// ReportKey is the data key of the upgrade-check report in an assessment ConfigMap.
	ReportKey = "report.json"
	// PlanPrefix starts the name of every plan ConfigMap.
	PlanPrefix = "aicr-plan-"
	// ValuesPrefix starts the name of every values ConfigMap.
	ValuesPrefix = "aicr-values-"
	// AssessmentPrefix starts the name of every assessment ConfigMap.
	AssessmentPrefix = "aicr-assessment-"
)

// inlineValuesSchema is the plan document schema that stored each release's values inline.
const inlineValuesSchema = 1

var (
	// ErrNotDigest is returned for a string that is not sha256: followed by 64 lowercase hex digits.
	ErrNotDigest = errors.New("not a sha256 digest")
	// ErrPlanLayout is returned for a plan document whose releases do not match its schema.
	ErrPlanLayout = errors.New("plan document does not match its schema")
)

// ConfigMapRef names a ConfigMap in the operator namespace and the digest of the document it holds.
type ConfigMapRef struct {
	// Name is the ConfigMap's name.
	Name string `json:"name"`
	// Digest is "sha256:" + hex SHA-256 of the document's bytes as stored.
	Digest string `json:"digest"`
}

// Plan is the plan document stored as plain JSON under PlanKey (PLAN-2). The embedded domain
// plan carries schemaVersion, desiredStateDigest, runtimeUID, source, aicrVersion and the
// releases with their plan graph; the fields below are not part of the digest. Schema 2
// stores each release with a valuesRef instead of its values (ValuesRefs; the decoded
// releases have no values until the reader loads them), schema 1 stored the values inline.
type Plan struct {
	domain.Plan
	// AICRImage is the AICR image, pinned by digest, that rendered the plan.
	AICRImage string `json:"aicrImage,omitempty"`
	// RenderFlags are the flags of `aicr bundle` the plan was rendered with; nil when the plan
	// does not record them (an empty list records that no flags were given).
	RenderFlags []string `json:"renderFlags"`
	// BundleRef is the operator's OCI reference of the rendered bundle, pinned by digest and
	// without a scheme, as oras takes it: <registry>/bundles/cluster@sha256:<digest>.
	BundleRef string `json:"bundleRef,omitempty"`
	// ConfigMapRef is the recipe as AICR resolved it (what upgrade-check compares and
	// kubectl aicr reproduce renders from); nil for a rebuilt plan.
	ConfigMapRef *ConfigMapRef `json:"configMapRef,omitempty"`
	// ValidationConfigMapRef is the recipe as the bundle records it after the render flags
	// (what deployment validation runs against); a plan without it validates against ConfigMapRef.
	ValidationConfigMapRef *ConfigMapRef `json:"validationConfigMapRef,omitempty"`
	// ValuesRefs has, per release in plan order, where its values are stored (schema 2, stored
	// as each release's valuesRef); nil for a schema 1 plan.
	ValuesRefs []ValuesRef `json:"-"`
}

// planDocument is the stored layout of a Plan: its releases replace those of domain.Plan.
type planDocument struct {
	*Plan
	Releases []releaseDocument `json:"releases"`
}

// releaseDocument is a release as stored.
type releaseDocument struct {
	domain.Release
	// Values hides domain.Release.Values: only a schema 1 document has it, even as null.
	Values json.RawMessage `json:"values,omitempty"`
	// ValuesRef is where a schema 2 document stores the values.
	ValuesRef *ValuesRef `json:"valuesRef,omitempty"`
}

// EncodePlan returns the plan document as stored under PlanKey. Only the current schema
// (domain.PlanSchemaVersion) is written: every release needs its ValuesRefs entry.
func EncodePlan(p *Plan) ([]byte, error) {
	if p.SchemaVersion != domain.PlanSchemaVersion || len(p.ValuesRefs) != len(p.Releases) {
		return nil, fmt.Errorf("encode plan document: schema %d with %d values references for %d releases, want schema %d with one per release: %w",
			p.SchemaVersion, len(p.ValuesRefs), len(p.Releases), domain.PlanSchemaVersion, ErrPlanLayout)
	}
	doc := planDocument{Plan: p, Releases: make([]releaseDocument, len(p.Releases))}
	for i, r := range p.Releases {
		doc.Releases[i] = releaseDocument{Release: r, ValuesRef: &p.ValuesRefs[i]}
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encode plan document: %w", err)
	}
	return raw, nil
}

// DecodePlan parses a plan document of schema 1 (values inline) or later (a valuesRef per
// release, returned in ValuesRefs); unknown fields, and a release stored in the layout of
// the other schema, are refused so a plan is never guessed.
func DecodePlan(raw []byte) (*Plan, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	p := &Plan{}
	doc := planDocument{Plan: p}
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("decode plan document: %w", err)
	}
	if doc.Releases == nil {
		return p, nil
	}
	inline := p.SchemaVersion == inlineValuesSchema
	p.Releases = make([]domain.Release, len(doc.Releases))
	for i, r := range doc.Releases {
		switch {
		case inline && r.ValuesRef != nil:
			return nil, fmt.Errorf("decode plan document: release %s has a valuesRef in a schema %d plan: %w", r.ID, p.SchemaVersion, ErrPlanLayout)
		case !inline && (r.Values != nil || r.ValuesRef == nil):
			return nil, fmt.Errorf("decode plan document: release %s has inline values or no valuesRef in a schema %d plan: %w", r.ID, p.SchemaVersion, ErrPlanLayout)
		case inline && r.Values != nil:
			if err := json.Unmarshal(r.Values, &r.Release.Values); err != nil {
				return nil, fmt.Errorf("decode plan document: values of %s: %w", r.ID, err)
			}
		case !inline:
			p.ValuesRefs = append(p.ValuesRefs, *r.ValuesRef)
		}
		p.Releases[i] = r.Release
	}
	return p, nil
}

// PlanConfigMapName returns the name of the plan ConfigMap of a desiredStateDigest:
// aicr-plan- and the first 16 hex digits of the digest.
func PlanConfigMapName(digest string) (string, error) {
	return shortName(PlanPrefix, digest)
}

// AssessmentConfigMapName returns the name of the assessment ConfigMap holding the
// upgrade-check report whose content digest is reportDigest for the transition from one plan
// to another: aicr-assessment- and the first 16 hex digits of a digest over the three. Equal
// reports of two transitions (their recipes differ only where upgrade-check does not look)
// are kept apart, each annotated with its own plans.
func AssessmentConfigMapName(from, to, reportDigest string) (string, error) {
	if !IsDigest(reportDigest) {
		return "", fmt.Errorf("%q: %w", reportDigest, ErrNotDigest)
	}
	return shortName(AssessmentPrefix, ContentDigest([]byte(from+"\n"+to+"\n"+reportDigest)))
}

func shortName(prefix, digest string) (string, error) {
	if !IsDigest(digest) {
		return "", fmt.Errorf("%q: %w", digest, ErrNotDigest)
	}
	return prefix + strings.TrimPrefix(digest, "sha256:")[:16], nil
}

// IsPlanConfigMapName reports whether name is aicr-plan- followed by 16 lowercase hex digits.
func IsPlanConfigMapName(name string) bool {
	short, ok := strings.CutPrefix(name, PlanPrefix)
	return ok && len(short) == 16 && isHex(short)
}

// IsDigest reports whether s is sha256: followed by 64 lowercase hex digits.
func IsDigest(s string) bool {
	hex, ok := strings.CutPrefix(s, "sha256:")
	return ok && len(hex) == 64 && isHex(hex)
}

func isHex(s string) bool {
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
