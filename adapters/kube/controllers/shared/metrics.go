package shared

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
)

// MetricPrefix starts the name of every metric the operator exports itself (OPS-2); the
// manager's endpoint also serves controller-runtime's own metrics.
const MetricPrefix = "aicr_operator_"

// Label values of the credential and Job metrics.
const (
	// CredentialPush is the operator's own registry token (aws provider).
	CredentialPush = "push"
	// CredentialPull is Argo CD's pull-only token the operator writes into the repo-creds Secret.
	CredentialPull = "pull"
	// ResultSuccess is a credential refresh that succeeded.
	ResultSuccess = "success"
	// ResultFailure is a refresh that failed (token request or repo-creds write).
	ResultFailure = "failure"
	// JobRunnerResolver runs the resolver's AICR Jobs (snapshot, recipe, bundle, upgrade-check).
	JobRunnerResolver = "resolver"
	// JobRunnerValidation runs deployment validation Jobs.
	JobRunnerValidation = "validation"
	// JobSucceeded is a Job that exited 0.
	JobSucceeded = "succeeded"
	// JobFailed is a Job that exited non-zero or was killed.
	JobFailed = "failed"
)

// stepDurationBuckets reach from a second to eight hours: a step waits for its release to be
// ready, and a GPU driver upgrade drains and reboots node after node.
var stepDurationBuckets = []float64{1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14400, 28800}

// rolloutPhases are the phases the rollouts gauge always reports, 0 when no rollout has them.
var rolloutPhases = []aicrv1alpha1.Phase{
	aicrv1alpha1.PhasePending, aicrv1alpha1.PhaseAwaitingApproval, aicrv1alpha1.PhaseProgressing,
	aicrv1alpha1.PhaseAwaitingAcknowledgement, aicrv1alpha1.PhaseValidating, aicrv1alpha1.PhaseSucceeded,
	aicrv1alpha1.PhaseFailed, aicrv1alpha1.PhaseExpired, aicrv1alpha1.PhaseRevoked, aicrv1alpha1.PhaseSuperseded,
	aicrv1alpha1.PhaseOrphaned,
}

// Metrics are the operator's Prometheus metrics (OPS-2), registered once in controller-runtime's
// registry so the manager's metrics endpoint serves them. Every name starts with MetricPrefix;
// the chart's alerts and Grafana dashboard (charts/aicr-operator/monitoring) use each of them,
// which a chart test checks. Counters start at 0 for every label value known up front, so an
// alert on their increase sees the first one.
type Metrics struct {
	// Rollouts counts the runtime's rollouts by phase (an outcome label wins over status).
	Rollouts *prometheus.GaugeVec
	// StepDuration observes how long steps took from their mutation to ready, by operation.
	StepDuration *prometheus.HistogramVec
	// Stalls counts stalls entered, by reason.
	Stalls *prometheus.CounterVec
	// Retired counts the objects retention deleted (RET-1..3), by kind: rollout or the
	// ConfigMap's role.
	Retired *prometheus.CounterVec
	// CredentialRefreshes counts registry credential refreshes by credential (CredentialPush,
	// CredentialPull) and result (ResultSuccess, ResultFailure).
	CredentialRefreshes *prometheus.CounterVec
	// CredentialRefreshed is the Unix time of each credential's last successful refresh.
	CredentialRefreshed *prometheus.GaugeVec
	// CredentialExpiry is the Unix time at which each credential in use expires (the
	// expiresAt of the last token the operator uses or wrote into Argo CD's repo-creds Secret).
	CredentialExpiry *prometheus.GaugeVec
	// JobsFinished counts AICR Jobs seen finishing, by runner and result (JobSucceeded, JobFailed).
	JobsFinished *prometheus.CounterVec
	// BuildInfo is 1, labelled with the operator's version and Go version.
	BuildInfo *prometheus.GaugeVec
	// State reports the runtime's conditions and the open rollouts' deadlines at scrape time.
	State *StateCollector
}

var (
	metricsOnce sync.Once
	metrics     *Metrics
)

// NewMetrics returns the operator's metrics, registering them on first use.
func NewMetrics() *Metrics {
	metricsOnce.Do(func() {
		metrics = newMetrics()
		ctrlmetrics.Registry.MustRegister(metrics.Rollouts, metrics.StepDuration, metrics.Stalls, metrics.Retired,
			metrics.CredentialRefreshes, metrics.CredentialRefreshed, metrics.CredentialExpiry, metrics.JobsFinished, metrics.BuildInfo, metrics.State)
	})
	return metrics
}

func newMetrics() *Metrics {
	m := &Metrics{
		Rollouts: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: MetricPrefix + "rollouts", Help: "RuntimeRollouts of the runtime by phase.",
		}, []string{"phase"}),
		StepDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    MetricPrefix + "rollout_step_duration_seconds",
			Help:    "Time from a step's mutation to its release being ready, by operation.",
			Buckets: stepDurationBuckets,
		}, []string{"operation"}),
		Stalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricPrefix + "stalls_total", Help: "Stalls entered by rollouts, by reason.",
		}, []string{"reason"}),
		Retired: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricPrefix + "retention_deleted_total", Help: "Objects retention deleted (RET-1..3), by kind: rollout or the ConfigMap's role.",
		}, []string{"kind"}),
		CredentialRefreshes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricPrefix + "registry_credential_refreshes_total",
			Help: "Registry credential refreshes by credential (push: the operator's token, pull: Argo CD's repo-creds) and result.",
		}, []string{"credential", "result"}),
		CredentialRefreshed: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: MetricPrefix + "registry_credential_last_refresh_timestamp_seconds",
			Help: "Unix time of each registry credential's last successful refresh.",
		}, []string{"credential"}),
		CredentialExpiry: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: MetricPrefix + "registry_credential_expiry_timestamp_seconds",
			Help: "Unix time at which each registry credential in use expires.",
		}, []string{"credential"}),
		JobsFinished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricPrefix + "jobs_finished_total", Help: "AICR Jobs seen finishing, by runner (resolver, validation) and result.",
		}, []string{"runner", "result"}),
		BuildInfo: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: MetricPrefix + "build_info", Help: "1, labelled with the operator's version and the Go version it was built with.",
		}, []string{"version", "goversion"}),
		State: NewStateCollector(),
	}
	for _, p := range rolloutPhases {
		m.Rollouts.WithLabelValues(string(p))
	}
	for _, op := range []aicrv1alpha1.Operation{aicrv1alpha1.OperationInstall, aicrv1alpha1.OperationUpgrade,
		aicrv1alpha1.OperationVerify, aicrv1alpha1.OperationRemove, aicrv1alpha1.OperationAdopt} {
		m.StepDuration.WithLabelValues(string(op))
	}
	for _, r := range domain.StallReasons() {
		m.Stalls.WithLabelValues(string(r))
	}
	// Retention deletes rollouts and the operator's ConfigMaps, counted by their role.
	for _, k := range []string{"rollout", aicrv1alpha1.RolePlan, aicrv1alpha1.RoleRecipe, aicrv1alpha1.RoleValues,
		aicrv1alpha1.RoleSnapshot, aicrv1alpha1.RoleAssessment} {
		m.Retired.WithLabelValues(k)
	}
	for _, c := range []string{CredentialPush, CredentialPull} {
		for _, r := range []string{ResultSuccess, ResultFailure} {
			m.CredentialRefreshes.WithLabelValues(c, r)
		}
	}
	for _, runner := range []string{JobRunnerResolver, JobRunnerValidation} {
		for _, r := range []string{JobSucceeded, JobFailed} {
			m.JobsFinished.WithLabelValues(runner, r)
		}
	}
	return m
}

// RecordBuildInfo sets the build-info gauge for version (set at build time, "dev" otherwise).
func (m *Metrics) RecordBuildInfo(version string) {
	m.BuildInfo.Reset()
	m.BuildInfo.WithLabelValues(version, runtime.Version()).Set(1)
}

// ObserveRollouts sets the rollouts-by-phase gauge from the runtime's rollouts.
func (m *Metrics) ObserveRollouts(rollouts []aicrv1alpha1.RuntimeRollout) {
	counts := make(map[string]float64, len(rolloutPhases))
	for _, p := range rolloutPhases {
		counts[string(p)] = 0
	}
	for _, ro := range rollouts {
		counts[rolloutPhase(&ro)]++
	}
	for phase, n := range counts {
		m.Rollouts.WithLabelValues(phase).Set(n)
	}
}

// rolloutPhase is where a rollout is: its outcome label, else its status phase, else Pending.
func rolloutPhase(ro *aicrv1alpha1.RuntimeRollout) string {
	if outcome := ro.Labels[aicrv1alpha1.LabelOutcome]; outcome != "" {
		return outcome
	}
	if ro.Status.Phase == "" {
		return string(aicrv1alpha1.PhasePending)
	}
	return string(ro.Status.Phase)
}

// stateReadTimeout bounds the cache reads of one scrape.
const stateReadTimeout = 5 * time.Second

var (
	runtimeConditionDesc = prometheus.NewDesc(MetricPrefix+"runtime_condition",
		"1 for each condition of the ClusterRuntime, labelled with its type, status and reason.",
		[]string{"type", "status", "reason"}, nil)
	rolloutDeadlineDesc = prometheus.NewDesc(MetricPrefix+"rollout_deadline_timestamp_seconds",
		"Unix time of the deadline of each rollout without an outcome, labelled with its name and phase.",
		[]string{"rollout", "phase"}, nil)
	rolloutHeldDesc = prometheus.NewDesc(MetricPrefix+"rollout_held",
		"1 for each rollout without an outcome whose next step the runtime's change policy holds (outside a change window, "+
			"or while protected workloads run), labelled with its name and the reason.",
		[]string{"rollout", "reason"}, nil)
)

// StateCollector reports, at scrape time, the ClusterRuntime's conditions (as
// kube-state-metrics reports a Deployment's), the deadline of every rollout without an outcome
// and the rollouts the change policy holds, read from the manager's cache. It reports nothing until Observe gives it a reader,
// and nothing on a replica that is not the leader, so one series exists per cluster; a failed
// read leaves its series out of that scrape rather than failing the scrape.
type StateCollector struct {
	source atomic.Pointer[stateSource]
}

type stateSource struct {
	reader  client.Reader
	elected <-chan struct{}
}

// NewStateCollector returns a collector without a reader.
func NewStateCollector() *StateCollector { return &StateCollector{} }

// Observe makes the collector read the ClusterRuntime and RuntimeRollouts through reader once
// elected is closed (the manager's Elected, closed at once without leader election).
func (s *StateCollector) Observe(reader client.Reader, elected <-chan struct{}) {
	s.source.Store(&stateSource{reader: reader, elected: elected})
}

// Describe implements prometheus.Collector.
func (s *StateCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- runtimeConditionDesc
	ch <- rolloutDeadlineDesc
	ch <- rolloutHeldDesc
}

// Collect implements prometheus.Collector.
func (s *StateCollector) Collect(ch chan<- prometheus.Metric) {
	src := s.source.Load()
	if src == nil {
		return
	}
	select {
	case <-src.elected:
	default:
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), stateReadTimeout)
	defer cancel()
	var runtimes aicrv1alpha1.ClusterRuntimeList
	if err := src.reader.List(ctx, &runtimes); err == nil {
		for _, cr := range runtimes.Items {
			for _, c := range cr.Status.Conditions {
				ch <- prometheus.MustNewConstMetric(runtimeConditionDesc, prometheus.GaugeValue, 1,
					c.Type, string(c.Status), c.Reason)
			}
		}
	}
	var rollouts aicrv1alpha1.RuntimeRolloutList
	if err := src.reader.List(ctx, &rollouts); err == nil {
		for i := range rollouts.Items {
			ro := &rollouts.Items[i]
			if ro.Labels[aicrv1alpha1.LabelOutcome] != "" {
				continue
			}
			ch <- prometheus.MustNewConstMetric(rolloutDeadlineDesc, prometheus.GaugeValue,
				float64(ro.Spec.Deadline.Unix()), ro.Name, rolloutPhase(ro))
			if reason, held := heldBy(ro); held {
				ch <- prometheus.MustNewConstMetric(rolloutHeldDesc, prometheus.GaugeValue, 1, ro.Name, reason)
			}
		}
	}
}

// heldBy returns the reason of the rollout's Stalled condition when it says the change policy
// holds its next step.
func heldBy(ro *aicrv1alpha1.RuntimeRollout) (string, bool) {
	c := meta.FindStatusCondition(ro.Status.Conditions, CondStalled)
	if c == nil || c.Status != metav1.ConditionTrue || !domain.StallReason(c.Reason).HeldByChangePolicy() {
		return "", false
	}
	return c.Reason, true
}
