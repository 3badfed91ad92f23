package aicr

// bundleInfo is bundle-info.yaml (FORMAT.md section 4.3). It is decoded
// strictly: a field not declared here fails the read.
type bundleInfo struct {
	APIVersion string       `json:"apiVersion"`
	Kind       string       `json:"kind"`
	Metadata   infoMetadata `json:"metadata"`
	Build      infoBuild    `json:"build"`
	Layout     infoLayout   `json:"layout"`
}

type infoMetadata struct {
	Version string `json:"version"`
}

type infoBuild struct {
	Deployer string       `json:"deployer"`
	Recipe   infoRecipe   `json:"recipe"`
	Settings infoSettings `json:"settings"`
}

type infoRecipe struct {
	Path    string `json:"path"`
	Digest  string `json:"digest"`
	Version string `json:"version"`
}

type infoSettings struct {
	Checksums          bool                `json:"checksums"`
	Attested           bool                `json:"attested"`
	VendorCharts       bool                `json:"vendorCharts"`
	ReadinessHooks     bool                `json:"readinessHooks"`
	Serial             bool                `json:"serial"`
	Components         []string            `json:"components,omitempty"`
	RepoURL            string              `json:"repoURL,omitempty"`
	TargetRevision     string              `json:"targetRevision,omitempty"`
	AppName            string              `json:"appName,omitempty"`
	StorageClass       string              `json:"storageClass,omitempty"`
	SharedStorageClass string              `json:"sharedStorageClass,omitempty"`
	NodeScheduling     *infoNodeScheduling `json:"nodeScheduling,omitempty"`
}

type infoNodeScheduling struct {
	System      *infoNodeGroup `json:"system,omitempty"`
	Accelerated *infoNodeGroup `json:"accelerated,omitempty"`
}

type infoNodeGroup struct {
	Selector    map[string]string `json:"selector,omitempty"`
	Tolerations []infoToleration  `json:"tolerations,omitempty"`
}

type infoToleration struct {
	Key               string `json:"key,omitempty"`
	Operator          string `json:"operator,omitempty"`
	Value             string `json:"value,omitempty"`
	Effect            string `json:"effect,omitempty"`
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty"`
}

type infoLayout struct {
	Entrypoint string        `json:"entrypoint"`
	Provenance string        `json:"provenance,omitempty"`
	Releases   []infoRelease `json:"releases"`
}

type infoRelease struct {
	Name      string `json:"name"`
	Component string `json:"component"`
	Namespace string `json:"namespace"`
	Path      string `json:"path"`
	Manifest  string `json:"manifest,omitempty"`
}

// recipeDeps is the part of the bundle's recipe.yaml the reader needs: the
// dependency edges between components. It is decoded leniently because the
// recipe carries many fields the operator does not interpret.
type recipeDeps struct {
	Metadata struct {
		Version string `json:"version"`
	} `json:"metadata"`
	ComponentRefs []struct {
		Name           string   `json:"name"`
		DependencyRefs []string `json:"dependencyRefs"`
	} `json:"componentRefs"`
}
