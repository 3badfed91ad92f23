// Package crdschema computes the digest of what a CustomResourceDefinition enforces: each
// version's name, OpenAPI schema (bounds, patterns, enums and CEL rules) and subresources.
// The operator compares the live CRDs of its API with the digests of the CRDs it was built
// with, so a CRD whose rules were loosened is never trusted.
package crdschema

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// version is the part of a CRD version that decides what the API server admits.
type version struct {
	Name         string                                      `json:"name"`
	Schema       *apiextensionsv1.CustomResourceValidation   `json:"schema,omitempty"`
	Subresources *apiextensionsv1.CustomResourceSubresources `json:"subresources,omitempty"`
}

// Digest returns the SHA-256, in lowercase hex, of crd's versions (name, schema and
// subresources) in name order, encoded as JSON.
func Digest(crd *apiextensionsv1.CustomResourceDefinition) (string, error) {
	versions := make([]version, 0, len(crd.Spec.Versions))
	for _, v := range crd.Spec.Versions {
		versions = append(versions, version{Name: v.Name, Schema: v.Schema, Subresources: v.Subresources})
	}
	slices.SortFunc(versions, func(a, b version) int { return strings.Compare(a.Name, b.Name) })
	b, err := json.Marshal(versions)
	if err != nil {
		return "", fmt.Errorf("encode the versions of CustomResourceDefinition %s: %w", crd.Name, err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
