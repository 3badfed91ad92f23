package ports

// ChartSource identifies the chart a release installs. For an upstream chart
// Repository is the Helm repository URL (https://...) or the OCI parent
// (oci://registry/path, the chart is Repository + "/" + Name); for a local
// chart (a folder of the bundle) Repository is empty and the chart is the
// bundle folder itself. ManifestDigest pins the chart as mirrored into the
// runtime registry (sha256:...); it is empty until the registry resolved it.
type ChartSource struct {
	Repository     string `json:"repository"`
	Name           string `json:"name"`
	Version        string `json:"version"`
	ManifestDigest string `json:"manifestDigest,omitempty"`
	// ArchiveDigest is the verified upstream archive digest of a mirrored
	// chart (PLAN-2); empty for a bundle-local chart. It is not part of the
	// plan digest: the manifest digest already addresses the archive.
	ArchiveDigest string `json:"archiveDigest,omitempty"`
}

// EnginePolicy holds the engine-neutral deployment policy of one release.
// Every engine maps these fields onto its own object (Argo CD sync options,
// Flux HelmRelease install/upgrade settings). Changing any field changes the
// plan's desiredStateDigest.
type EnginePolicy struct {
	// CreateNamespace asks the engine to create the release namespace when
	// missing (false when a local chart owns its Namespace object).
	CreateNamespace bool `json:"createNamespace"`
	// ServerSideApply asks the engine to apply objects with server-side apply.
	ServerSideApply bool `json:"serverSideApply"`
}

// ReleaseRef identifies one release. Namespace plus ID is the release's
// identity (the same key Helm uses); ID is the Helm release name (<= 53 chars).
type ReleaseRef struct {
	ID        string `json:"id"`
	Namespace string `json:"namespace"`
}

// String returns "namespace/id".
func (r ReleaseRef) String() string { return r.Namespace + "/" + r.ID }

// ReleaseOwner is what the operator records on every engine object it writes:
// the runtime UID authorises mutation, the plan digest says which plan the
// object carries and the rollout names the rollout that wrote it.
type ReleaseOwner struct {
	RuntimeUID string `json:"runtimeUID"`
	PlanDigest string `json:"planDigest"`
	Rollout    string `json:"rollout,omitempty"`
}

// ReleaseSpec is the desired state of one release as the domain hands it to a
// DeploymentEngine: identity, chart source, merged values, engine policy and
// the IDs of the releases it depends on (the plan graph).
type ReleaseSpec struct {
	Ref ReleaseRef `json:"ref"`
	// Position is the release's index in plan order (0 for the first release).
	// The engine records it, with Component, Kind, Chart and ContentDigest, so
	// Specs returns the same spec and a lost plan can be rebuilt (PLAN-7).
	Position int `json:"position"`
	// Component is the AICR component the release belongs to.
	Component string `json:"component,omitempty"`
	// Kind says whether the chart is upstream or bundle-local.
	Kind ReleaseKind `json:"kind,omitempty"`
	// Chart is the chart to install.
	Chart ChartSource `json:"chart"`
	// ContentDigest is the digest of a local chart's payload (empty for upstream charts).
	ContentDigest string `json:"contentDigest,omitempty"`
	// Values are the release's Helm values; explicit nil values must be
	// preserved by the engine (they delete the chart default).
	Values map[string]any `json:"values"`
	// Policy is the engine-neutral deployment policy.
	Policy EnginePolicy `json:"policy"`
	// DependsOn lists release IDs (same plan) that must be ready first.
	DependsOn []string `json:"dependsOn,omitempty"`
	// Owner is recorded on the engine object (annotations).
	Owner ReleaseOwner `json:"owner"`
}
