package resolver

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// FieldManager is the server-side-apply field manager of the
// resolver: it owns the Resolved condition, status.candidatePlanDigest and
// status.handledRequests.resolveRequestedAt and nothing else (CR-7).
const FieldManager = "aicr-resolver"

// resolverPoll is the safety-net requeue while a Job runs; Job events normally come first.
const resolverPoll = 30 * time.Second

// Config is the installation configuration the resolver needs.
type Config struct {
	// OperatorNamespace holds plans, recipes, values and kept results.
	OperatorNamespace string
	// JobNamespace is where AICR Jobs run, DiscoveryNamespace where the snapshot agent runs (the
	// Job watch is limited to them).
	JobNamespace, DiscoveryNamespace string
	// Image is the pinned AICR image (by digest).
	Image string
	// AICRVersion is the pinned AICR version every Job must report (RES-5).
	AICRVersion string
	// AllowedNamespaces are the chart's namespaces.components (RES-3).
	AllowedNamespaces []string
	// AdmissionPolicies are the chart's policies (shared.ChartAdmissionPolicies) whose absence stalls
	// the resolution with AdmissionPolicyMissing: kept results and plans are trusted only under
	// them. Empty checks none.
	AdmissionPolicies []string
	// AdmissionDigests are the content digests of those policies and their bindings as the
	// chart rendered them (shared.AdmissionDigest), by policy name; a policy without one is checked
	// for presence and form only.
	AdmissionDigests map[string]string
	// CRDDigests are the schema digests of the CRDs of the operator's API (shared.Options.CRDDigests).
	CRDDigests map[string]string
	// Track wraps the reconciler (the liveness tracker); nil: none.
	Track shared.Track
	// Sealer seals the plans and upgrade-check reports the resolver keeps, so only its own are used.
	Sealer ports.Sealer
}

// Reconciler resolves the ClusterRuntime into a candidate plan: discovery,
// snapshot, recipe, upgrade-check and bundle Jobs, then the plan ConfigMaps
// (RES-1..8, PLAN-1..7). It writes only the Resolved condition and the status
// fields it owns, with its own field manager.
type Reconciler struct {
	Client client.Client
	Reader client.Reader
	Jobs   ports.JobRunner
	// Snapshots runs the snapshot stage: AICR's snapshot agent in the discovery namespace
	// (adapters/jobs with Agent set).
	Snapshots ports.JobRunner
	// Bundles reads a bundle Job's output (AICR's helm bundle).
	Bundles ports.BundleReader
	// Registry, when set, serves every chart of a new plan from the runtime
	// registry pinned by manifest digest and stores the rendered bundle
	// (PLAN-3, domain.PublishCharts); nil leaves charts unpinned, so the plan
	// digest is the offline one.
	Registry ports.Registry
	Clock    ports.Clock
	Recorder record.EventRecorder
	Config   Config
	// admission stalls the resolution while a policy it relies on is not in force.
	admission *shared.AdmissionGuard
	// nodes discovers the node groups.
	nodes *nodeGroups
	// published is the record of the upstream charts published to the registry, kept across
	// reconciles (domain.PublishedCharts).
	published *domain.PublishedCharts
}

// New returns a Reconciler. c is the manager's client (cached reads of
// the ClusterRuntime), reader the uncached API reader (ConfigMaps, Nodes),
// reg the runtime registry or nil (no chart pinning); jobs runs the AICR Jobs of the Job
// namespace, snapshots the snapshot agent of the discovery namespace.
func New(c client.Client, reader client.Reader, jobs, snapshots ports.JobRunner, bundles ports.BundleReader, reg ports.Registry,
	clock ports.Clock, recorder record.EventRecorder, cfg Config) (*Reconciler, error) {
	if c == nil || reader == nil || jobs == nil || snapshots == nil || bundles == nil || clock == nil || recorder == nil {
		return nil, fmt.Errorf("resolver: every dependency is required")
	}
	if cfg.OperatorNamespace == "" || cfg.JobNamespace == "" || cfg.DiscoveryNamespace == "" || cfg.AICRVersion == "" || cfg.Sealer == nil {
		return nil, fmt.Errorf("resolver: operator namespace, job and discovery namespaces, AICR version and sealer are required")
	}
	return &Reconciler{Client: c, Reader: reader, Jobs: jobs, Snapshots: snapshots, Bundles: bundles, Registry: reg, Clock: clock, Recorder: recorder, Config: cfg,
		admission: shared.NewAdmissionGuard(c, cfg.AdmissionPolicies, cfg.AdmissionDigests, cfg.CRDDigests), nodes: &nodeGroups{},
		published: domain.NewPublishedCharts()}, nil
}

// +kubebuilder:rbac:groups=operator.aicr.run,resources=clusterruntimes,verbs=get;list;watch
// +kubebuilder:rbac:groups=operator.aicr.run,resources=clusterruntimes/status,verbs=get;patch
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;delete;patch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;create;delete
// +kubebuilder:rbac:groups="",resources=nodes;pods,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

// Reconcile resolves the runtime and applies the Resolved condition. A stall
// returns without error (a spec, annotation, Node or Job change retriggers);
// a transient failure returns its error for backoff; a running Job waits for
// its Job event.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	cr := &aicrv1alpha1.ClusterRuntime{}
	if err := r.Client.Get(ctx, req.NamespacedName, cr); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !cr.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	out, err := r.guardedResolve(ctx, cr)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.applyResolved(ctx, cr, out); err != nil {
		return ctrl.Result{}, err
	}
	switch {
	case out.transient != nil:
		return ctrl.Result{}, out.transient
	case out.again > 0:
		return ctrl.Result{RequeueAfter: out.again}, nil
	case out.reason == domain.ReasonResolving:
		return ctrl.Result{RequeueAfter: resolverPoll}, nil
	}
	return ctrl.Result{}, nil
}

// guardedResolve resolves the runtime, or, while an admission policy the resolver relies on is
// not in force, reports the AdmissionPolicyMissing stall without reading anything back.
func (r *Reconciler) guardedResolve(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime) (*outcome, error) {
	stall, err := r.admission.Check(ctx)
	if err != nil {
		return nil, err
	}
	if stall != nil {
		return stalled(stall), nil
	}
	return r.resolve(ctx, cr), nil
}
