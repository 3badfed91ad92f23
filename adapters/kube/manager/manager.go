// Package manager builds the operator's controller-runtime manager: leader election with a
// Lease in the operator namespace, metrics (HTTPS, authenticated and authorized by the API
// server unless turned off) and health endpoints (liveness fails while a reconcile is stuck past
// its bound, Liveness; readiness until the caches synced), a deadline on every reconcile, graceful shutdown, and
// caches limited to the operator's own labelled objects, so unrelated ConfigMaps are never
// cached and Secrets (and the engine objects the operator only reads by name) are never
// listed, watched or cached (CH-4, OPS-2).
package manager

import (
	"crypto/tls"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// LeaderElectionID names the operator's leader-election Lease.
const LeaderElectionID = "aicr-operator.operator.aicr.run"

// Options configures the manager; the composition root maps app.Config onto it.
type Options struct {
	// OperatorNamespace holds plans, the leader-election Lease and events.
	OperatorNamespace string
	// JobNamespaces hold the AICR Jobs (jobs, discovery, validation namespaces).
	JobNamespaces []string
	// LeaderElect enables leader election.
	LeaderElect bool
	// LeaseDuration, RenewDeadline and RetryPeriod tune leader election.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// MetricsBindAddress serves Prometheus metrics ("0" disables).
	MetricsBindAddress string
	// MetricsSecure serves metrics over HTTPS (a self-signed certificate controller-runtime
	// generates in memory) and only to callers whose bearer token the API server authenticates
	// (TokenReview) and authorizes for get on the /metrics non-resource URL
	// (SubjectAccessReview): callers without a valid token are refused (401, or 500 when the
	// TokenReview reports an error), callers without the grant get 403. The
	// operator's identity needs create on tokenreviews and subjectaccessreviews (the chart's
	// rbac-metrics.yaml). False serves plain HTTP to anyone who reaches the port.
	MetricsSecure bool
	// MetricsCertDir, with MetricsSecure, holds the serving certificate and key (tls.crt and
	// tls.key, as a kubernetes.io/tls Secret mounts them), reloaded when they change; empty:
	// the self-signed certificate.
	MetricsCertDir string
	// HealthProbeBindAddress serves /healthz and /readyz ("0" disables).
	HealthProbeBindAddress string
	// GracefulShutdownTimeout bounds how long runnables get to stop.
	GracefulShutdownTimeout time.Duration
	// AddToScheme registers engine types (for example Argo CD's) next to the core and operator types.
	AddToScheme []func(*runtime.Scheme) error
	// CacheByObject caches the kinds whose CRDs may be installed after the operator started
	// (engine objects), each in a cache of its own restricted to its Namespaces, Label, Field
	// and Transform: the kind's REST mapping is needed only once the kind is read or watched,
	// so the manager starts without the CRD and caches the kind once it is served (ENG-4).
	CacheByObject map[client.Object]cache.ByObject
	// Uncached are object types read by name only, never listed, watched or cached.
	Uncached []client.Object
	// ReconcileTimeout is the deadline of the context of every reconcile of every controller
	// (0: none).
	ReconcileTimeout time.Duration
	// Liveness, when set, fails /healthz while a reconcile it tracks has run longer than its
	// bound (the controllers wrap their reconcilers with Liveness.Track).
	Liveness *Liveness
}

// metricsOptions serves metrics on o.MetricsBindAddress, authenticated and authorized by the
// API server when o.MetricsSecure (OPS-2).
func metricsOptions(o Options) metricsserver.Options {
	m := metricsserver.Options{BindAddress: o.MetricsBindAddress}
	if o.MetricsSecure {
		m.SecureServing = true
		m.FilterProvider = authorizedByAPIServer
		m.TLSOpts = []func(*tls.Config){http1Only}
		if o.MetricsCertDir != "" {
			m.CertDir, m.CertName, m.KeyName = o.MetricsCertDir, corev1.TLSCertKey, corev1.TLSPrivateKeyKey
		}
	}
	return m
}

// http1Only turns HTTP/2 off on the metrics listener: its stream-reset floods
// (CVE-2023-44487, CVE-2023-39325) reach a handler before any authentication.
func http1Only(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }

// NewScheme returns the core, operator and extra types.
func NewScheme(extra ...func(*runtime.Scheme) error) (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	for _, add := range append([]func(*runtime.Scheme) error{clientgoscheme.AddToScheme, aicrv1alpha1.AddToScheme, apiextensionsv1.AddToScheme}, extra...) {
		if err := add(scheme); err != nil {
			return nil, fmt.Errorf("build scheme: %w", err)
		}
	}
	return scheme, nil
}

// New builds the manager. ConfigMaps are cached only in the operator namespace and only
// with the operator's role label, Jobs only in the Job namespaces with the operator's
// managed-by label, Nodes as their name and a digest of their labels (NodeLabelsDigest), the
// kinds of Options.CacheByObject in caches of their own; Secrets, Nodes and CRDs bypass the
// cache on reads (Secrets and CRDs are read by name only, Nodes listed by label selector). Cached objects drop their managedFields,
// which the operator never reads, and caches fill from streaming watches (streamingLists).
// With leader election, a replica that led writes only while its Lease renewals are recent
// (leaseFence): one that lost the Lease writes nothing until its elector notices and it stops.
func New(cfg *rest.Config, o Options) (ctrl.Manager, error) {
	enableStreamingLists()
	scheme, err := NewScheme(o.AddToScheme...)
	if err != nil {
		return nil, err
	}
	roleExists, err := labels.NewRequirement(aicrv1alpha1.LabelRole, selection.Exists, nil)
	if err != nil {
		return nil, fmt.Errorf("role selector: %w", err)
	}
	managed := labels.SelectorFromSet(labels.Set{aicrv1alpha1.LabelManagedBy: aicrv1alpha1.ManagedByValue})
	jobNamespaces := map[string]cache.Config{}
	for _, ns := range o.JobNamespaces {
		jobNamespaces[ns] = cache.Config{}
	}
	byObject := map[client.Object]cache.ByObject{
		&corev1.ConfigMap{}: {
			Namespaces: map[string]cache.Config{o.OperatorNamespace: {}},
			Label:      labels.NewSelector().Add(*roleExists),
		},
		&batchv1.Job{}: {Namespaces: jobNamespaces, Label: managed},
		// Node metadata, watched to learn of new, relabelled and deleted Nodes, is cached as
		// a name and a digest of the labels (NodeLabelsDigest).
		&corev1.Node{}: {Transform: nodeLabelsDigest},
	}
	if o.LeaderElect {
		cfg = rest.CopyConfig(cfg)
		// The fence needs time.Now's monotonic reading, which ports.Clock's UTC time drops: it
		// keeps counting while the process is stopped and never steps with the wall clock.
		cfg.Wrap(newLeaseFence(o.OperatorNamespace, LeaderElectionID, o.RenewDeadline, time.Now).wrap) //nolint:forbidigo // see above
	}
	events := NewEventBroadcaster()
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                        scheme,
		EventBroadcaster:              events, //nolint:staticcheck // stopped by broadcasterShutdown with the manager.
		LeaderElection:                o.LeaderElect,
		LeaderElectionID:              LeaderElectionID,
		LeaderElectionNamespace:       o.OperatorNamespace,
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 &o.LeaseDuration,
		RenewDeadline:                 &o.RenewDeadline,
		RetryPeriod:                   &o.RetryPeriod,
		Metrics:                       metricsOptions(o),
		HealthProbeBindAddress:        o.HealthProbeBindAddress,
		GracefulShutdownTimeout:       &o.GracefulShutdownTimeout,
		Cache:                         cache.Options{ByObject: byObject, DefaultTransform: cache.TransformStripManagedFields()},
		NewCache:                      newCache(o.CacheByObject),
		Client: client.Options{Cache: &client.CacheOptions{DisableFor: append([]client.Object{
			&corev1.Secret{}, &corev1.Node{}, &apiextensionsv1.CustomResourceDefinition{}}, o.Uncached...)}},
		Controller: config.Controller{ReconciliationTimeout: o.ReconcileTimeout},
	})
	if err != nil {
		events.Shutdown()
		return nil, fmt.Errorf("build manager: %w", err)
	}
	if err := mgr.Add(broadcasterShutdown{broadcaster: events}); err != nil {
		return nil, fmt.Errorf("add event broadcaster shutdown: %w", err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, fmt.Errorf("add health check: %w", err)
	}
	if o.Liveness != nil {
		if err := mgr.AddHealthzCheck("reconciles", o.Liveness.Check); err != nil {
			return nil, fmt.Errorf("add reconcile liveness check: %w", err)
		}
	}
	if err := mgr.AddReadyzCheck("caches", cachesSynced(mgr.GetCache())); err != nil {
		return nil, fmt.Errorf("add readiness check: %w", err)
	}
	return mgr, nil
}
