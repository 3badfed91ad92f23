package jobexec

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// catalogRegistry is the registry prefix of the check images in AICR's validator catalog,
// which AICR_VALIDATOR_IMAGE_REGISTRY replaces.
const catalogRegistry = "ghcr.io/nvidia"

// Check is one check of AICR's validator catalog.
type Check struct {
	Name    string   `json:"name"`
	Phase   string   `json:"phase"`
	Image   string   `json:"image"`
	Timeout string   `json:"timeout"`
	Args    []string `json:"args"`
}

// CatalogPath is AICR v1's own validator catalog in the repository's copy of its reference
// artifacts.
func CatalogPath() string {
	return filepath.Join(Root(), "test", "testdata", "aicr", "v1-reference", "recipes", "validators", "catalog.yaml")
}

// PhaseChecks returns the checks of phase in the catalog at path, in catalog order.
func PhaseChecks(path, phase string) ([]Check, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the validator catalog: %w", err)
	}
	var catalog struct {
		Validators []Check `json:"validators"`
	}
	if err := yaml.Unmarshal(raw, &catalog); err != nil {
		return nil, fmt.Errorf("decode the validator catalog %s: %w", path, err)
	}
	var out []Check
	for _, c := range catalog.Validators {
		if c.Phase == phase {
			out = append(out, c)
		}
	}
	return out, nil
}

// CheckImage is the image AICR runs a check from: the catalog's, with its ghcr.io/nvidia
// prefix replaced by registry and its tag by tag, each when set; a :latest tag without tag set
// becomes the CLI's version, as a release build does.
func CheckImage(catalogImage, registry, tag, version string) string {
	image := catalogImage
	if registry != "" && strings.HasPrefix(image, catalogRegistry+"/") {
		image = strings.TrimSuffix(registry, "/") + strings.TrimPrefix(image, catalogRegistry)
	}
	repo, current := image, ""
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		repo, current = image[:i], image[i+1:]
	}
	switch {
	case tag != "":
		current = tag
	case current == "latest" && version != "":
		current = "v" + strings.TrimPrefix(version, "v")
	}
	return repo + ":" + current
}

// deadline is the check Job's activeDeadlineSeconds: the catalog timeout plus AICR's 3m30s
// headroom.
func (c Check) deadline() (int64, error) {
	d, err := time.ParseDuration(c.Timeout)
	if err != nil {
		return 0, fmt.Errorf("check %s timeout %q: %w", c.Name, c.Timeout, err)
	}
	return int64((d + 210*time.Second) / time.Second), nil
}
