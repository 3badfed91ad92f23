package ports

// BundleLayout names the layout of an AICR helm bundle.
type BundleLayout string

const (
	// LayoutV1 is the AICR v1.x layout: bundle-info.yaml + NNN-<release>/ folders.
	LayoutV1 BundleLayout = "v1"
	// LayoutLegacyV0 is the AICR v0.x flat layout (no bundle-info.yaml); the
	// operator refuses it.
	LayoutLegacyV0 BundleLayout = "legacy-v0"
)

// ReleaseKind says where a bundle release's chart comes from.
type ReleaseKind string

const (
	// KindUpstream is a chart from an upstream repository named in upstream.env.
	KindUpstream ReleaseKind = "upstream-chart"
	// KindLocal is a chart that is the bundle folder itself (Chart.yaml present).
	KindLocal ReleaseKind = "local-chart"
)

// BundleRelease is one release of a bundle, engine-neutral, as a bundle reader
// produces it: in deployment order, with its chart source and merged values.
type BundleRelease struct {
	// Order is the 1-based position in the bundle's deployment order.
	Order int
	// Name is the Helm release name.
	Name string
	// Component is the recipe component the release belongs to.
	Component string
	// Namespace is the release namespace.
	Namespace string
	// Path is the bundle folder (NNN-<name>).
	Path string
	// Kind is upstream or local.
	Kind ReleaseKind
	// Chart is the chart (for a local chart: name and version of Chart.yaml, no repository).
	Chart ChartSource
	// PayloadVersion is a local chart's aicr.run/component-version annotation.
	PayloadVersion string
	// ContentDigest is the digest of a local chart's payload (empty for upstream).
	ContentDigest string
	// Values is values.yaml coalesced with cluster-values.yaml as Helm merges
	// `-f values.yaml -f cluster-values.yaml`; explicit nils are kept.
	Values map[string]any
	// CreateNamespace mirrors --create-namespace in install.sh.
	CreateNamespace bool
	// DependsOnComponents lists the components this release's component depends on.
	DependsOnComponents []string
}

// Bundle is what a bundle reader found.
type Bundle struct {
	// Layout is the detected layout; LayoutLegacyV0 carries no releases.
	Layout BundleLayout
	// AICRVersion is the AICR version that rendered the bundle.
	AICRVersion string
	// Deployer is the bundle's deployer (helm or helmfile).
	Deployer string
	// RecipeDigest is the digest of the bundle's recipe.yaml as bundle-info records it.
	RecipeDigest string
	// Releases are in deployment order.
	Releases []BundleRelease
}

// UpgradeVerdict is AICR upgrade-check's verdict for one component.
type UpgradeVerdict string

const (
	// VerdictSafe means the version change needs no manual step.
	VerdictSafe UpgradeVerdict = "safe"
	// VerdictManual means the transition record lists manual steps.
	VerdictManual UpgradeVerdict = "manual"
	// VerdictBlocked means the transition must not be performed.
	VerdictBlocked UpgradeVerdict = "blocked"
	// VerdictUnknown means AICR has no record to judge the change.
	VerdictUnknown UpgradeVerdict = "unknown"
)

// ComponentAssessment is upgrade-check's row for one component.
type ComponentAssessment struct {
	Component string
	Verdict   UpgradeVerdict
	// Reason is AICR's reason code (e.g. no-record, identity-changed).
	Reason string
	// RecordedSteps reports that the transition record asks for a precondition or steps besides
	// the apply, which an approver acknowledges before the operator applies (RO-9).
	RecordedSteps bool
	// ChangesCRDs reports that the transition changes CustomResourceDefinitions.
	ChangesCRDs bool
}
