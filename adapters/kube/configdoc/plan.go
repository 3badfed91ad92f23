package configdoc

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/nvidia/aicr-operator/domain"
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
	// AssessmentPrefix starts the name of every assessment ConfigMap.
	AssessmentPrefix = "aicr-assessment-"
)

// ErrNotDigest is returned for a string that is not sha256: followed by 64 lowercase hex digits.
var ErrNotDigest = errors.New("not a sha256 digest")

// ConfigMapRef names a ConfigMap in the operator namespace and the digest of the document it holds.
type ConfigMapRef struct {
	// Name is the ConfigMap's name.
	Name string `json:"name"`
	// Digest is "sha256:" + hex SHA-256 of the document's bytes as stored.
	Digest string `json:"digest"`
}

// Plan is the plan document stored as plain JSON under PlanKey (PLAN-2). The embedded domain
// plan carries schemaVersion, desiredStateDigest, runtimeUID, source, aicrVersion and the
// releases with their plan graph; the fields below are not part of the digest.
type Plan struct {
	domain.Plan
	// AICRImage is the AICR image, pinned by digest, that rendered the plan.
	AICRImage string `json:"aicrImage,omitempty"`
	// RenderFlags are the flags of `aicr bundle` the plan was rendered with; nil when the plan
	// does not record them (an empty list records that no flags were given).
	RenderFlags []string `json:"renderFlags"`
	// BundleRef is the operator's OCI reference of the rendered bundle, pinned by digest.
	BundleRef string `json:"bundleRef,omitempty"`
	// ConfigMapRef is the recipe as AICR resolved it (what upgrade-check compares and
	// kubectl aicr reproduce renders from); nil for a rebuilt plan.
	ConfigMapRef *ConfigMapRef `json:"configMapRef,omitempty"`
	// ValidationConfigMapRef is the recipe as the bundle records it after the render flags
	// (what deployment validation runs against); a plan without it validates against ConfigMapRef.
	ValidationConfigMapRef *ConfigMapRef `json:"validationConfigMapRef,omitempty"`
}

// EncodePlan returns the plan document as stored under PlanKey.
func EncodePlan(p *Plan) ([]byte, error) {
	raw, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode plan document: %w", err)
	}
	return raw, nil
}

// DecodePlan parses a plan document; unknown fields are refused so a newer schema is never guessed.
func DecodePlan(raw []byte) (*Plan, error) {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	p := &Plan{}
	if err := dec.Decode(p); err != nil {
		return nil, fmt.Errorf("decode plan document: %w", err)
	}
	return p, nil
}

// PlanConfigMapName returns the name of the plan ConfigMap of a desiredStateDigest:
// aicr-plan- and the first 16 hex digits of the digest.
func PlanConfigMapName(digest string) (string, error) {
	return shortName(PlanPrefix, digest)
}

// AssessmentConfigMapName returns the name of the assessment ConfigMap holding the
// upgrade-check report whose content digest is digest.
func AssessmentConfigMapName(digest string) (string, error) {
	return shortName(AssessmentPrefix, digest)
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
