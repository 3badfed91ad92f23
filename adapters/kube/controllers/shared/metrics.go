package shared

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	aicrv1alpha1 "github.com/nvidia/aicr-operator/adapters/kube/api/v1alpha1"
)

// Metrics are the rollout controllers' Prometheus metrics (OPS-2), registered once in
// controller-runtime's registry so the manager's metrics endpoint serves them.
type Metrics struct {
	// Rollouts counts the runtime's rollouts by phase.
	Rollouts *prometheus.GaugeVec
	// StepDuration observes how long steps took from their mutation to ready, by operation.
	StepDuration *prometheus.HistogramVec
	// Stalls counts stalls entered, by reason.
	Stalls *prometheus.CounterVec
	// Retired counts the objects retention deleted (RET-1..3), by kind: rollout or the
	// ConfigMap's role.
	Retired *prometheus.CounterVec
}

var (
	metricsOnce sync.Once
	metrics     *Metrics
)

// NewMetrics returns the controllers' metrics, registering them on first use.
func NewMetrics() *Metrics {
	metricsOnce.Do(func() {
		metrics = &Metrics{
			Rollouts: prometheus.NewGaugeVec(prometheus.GaugeOpts{
				Name: "aicr_rollouts", Help: "RuntimeRollouts of the runtime by phase.",
			}, []string{"phase"}),
			StepDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
				Name:    "aicr_rollout_step_duration_seconds",
				Help:    "Time from a step's mutation to its release being ready, by operation.",
				Buckets: prometheus.ExponentialBuckets(1, 2, 12),
			}, []string{"operation"}),
			Stalls: prometheus.NewCounterVec(prometheus.CounterOpts{
				Name: "aicr_stalls_total", Help: "Stalls entered by rollouts and the runtime, by reason.",
			}, []string{"reason"}),
			Retired: prometheus.NewCounterVec(prometheus.CounterOpts{
				Name: "aicr_retention_deleted_total", Help: "Objects retention deleted (RET-1..3), by kind: rollout or the ConfigMap's role.",
			}, []string{"kind"}),
		}
		ctrlmetrics.Registry.MustRegister(metrics.Rollouts, metrics.StepDuration, metrics.Stalls, metrics.Retired)
	})
	return metrics
}

// ObserveRollouts sets the rollouts-by-phase gauge from the runtime's rollouts.
func (m *Metrics) ObserveRollouts(rollouts []aicrv1alpha1.RuntimeRollout) {
	m.Rollouts.Reset()
	for _, ro := range rollouts {
		phase := string(ro.Status.Phase)
		if outcome := ro.Labels[aicrv1alpha1.LabelOutcome]; outcome != "" {
			phase = outcome
		}
		if phase == "" {
			phase = string(aicrv1alpha1.PhasePending)
		}
		m.Rollouts.WithLabelValues(phase).Inc()
	}
}
