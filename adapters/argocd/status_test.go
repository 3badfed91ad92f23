package argocd

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/wellknown"
	"github.com/NVIDIA/aicr/ports"
)

// TestObserveMapsArgoCDStrings is the one table of the adapter: every Argo CD sync,
// health and operation string the adapter knows, plus unknown ones, mapped
// by the one function observe.
func TestObserveMapsArgoCDStrings(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		sync      argov1.SyncStatusCode
		health    string
		phase     string
		requested bool
		wantH     ports.Health
		wantOp    ports.OperationState
		synced    bool
	}{
		{"synced healthy", "Synced", "Healthy", "Succeeded", false, ports.HealthHealthy, ports.OperationSucceeded, true},
		{"progressing", "Synced", "Progressing", "Succeeded", false, ports.HealthProgressing, ports.OperationSucceeded, true},
		{"degraded", "Synced", "Degraded", "Succeeded", false, ports.HealthDegraded, ports.OperationSucceeded, true},
		{"suspended health", "Synced", "Suspended", "Succeeded", false, ports.HealthSuspended, ports.OperationSucceeded, true},
		{"missing", "OutOfSync", "Missing", "", false, ports.HealthMissing, ports.OperationNone, false},
		{"never synced", "", "", "", false, ports.HealthUnknown, ports.OperationNone, false},
		{"argo unknown", "Unknown", "Unknown", "", false, ports.HealthUnknown, ports.OperationNone, false},
		{"out of sync after sync", "OutOfSync", "Healthy", "Succeeded", false, ports.HealthHealthy, ports.OperationSucceeded, false},
		{"running", "OutOfSync", "Progressing", "Running", false, ports.HealthProgressing, ports.OperationRunning, false},
		{"terminating", "Synced", "Healthy", "Terminating", false, ports.HealthHealthy, ports.OperationRunning, false},
		{"failed", "Synced", "Healthy", "Failed", false, ports.HealthHealthy, ports.OperationFailed, false},
		{"error", "OutOfSync", "Healthy", "Error", false, ports.HealthHealthy, ports.OperationFailed, false},
		{"requested, not started", "Synced", "Healthy", "Succeeded", true, ports.HealthHealthy, ports.OperationRunning, false},
		{"future strings", "Drifting", "Wobbly", "Pondering", false, ports.HealthUnknown, ports.OperationRunning, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			app := observedApp(c.sync, c.health, c.phase, c.requested)
			st := observe(app)
			assert.Equal(t, c.wantH, st.Health)
			assert.Equal(t, c.wantOp, st.Operation)
			assert.Equal(t, c.synced, st.Synced())
			assert.Equal(t, c.synced && c.wantH == ports.HealthHealthy, st.Ready())
			assert.Equal(t, ports.ReleaseRef{ID: "gpu-operator", Namespace: "gpu-operator"}, st.Ref)
			assert.Equal(t, "uid-1", st.Owner.RuntimeUID)
		})
	}
}

// TestObserveNeedsTheCurrentSpecCompared: a Synced status compared to an
// older source is not synced to the plan's revision.
func TestObserveNeedsTheCurrentSpecCompared(t *testing.T) {
	t.Parallel()
	app := observedApp("Synced", "Healthy", "Succeeded", false)
	app.Spec.Source.TargetRevision = "sha256:new"
	st := observe(app)
	assert.False(t, st.Synced())
	assert.NotEqual(t, st.DesiredRevision, st.SyncedRevision)
	assert.Contains(t, st.DesiredRevision, "sha256:new")
}

func TestObserveReportsSuspensionAndDetail(t *testing.T) {
	t.Parallel()
	app := observedApp("Synced", "Degraded", "Succeeded", false)
	assert.False(t, observe(app).Suspended)
	off := false
	app.Spec.SyncPolicy.Automated.Enabled = &off
	app.Status.Resources = []argov1.ResourceStatus{{Kind: "Deployment", Namespace: "gpu-operator", Name: "driver",
		Health: &argov1.HealthStatus{Status: "Degraded", Message: "CrashLoopBackOff"}}}
	st := observe(app)
	assert.True(t, st.Suspended)
	assert.Equal(t, "Deployment gpu-operator/driver: CrashLoopBackOff", st.Message)
	app.Spec.SyncPolicy = nil
	assert.True(t, observe(app).Suspended, "no automated sync at all is suspended")
}

// TestObserveDetailOfTheOperation: Argo CD v3 keeps no resource health in the Application
// (controller.resource.health.persist is off by default), so the detail of a release that is
// not healthy comes from its conditions or its operation: a failed or running operation's
// message explains it, a succeeded one's ("successfully synced") does not and is left out; a
// Degraded release without either says where Argo CD shows the Degraded resource.
func TestObserveDetailOfTheOperation(t *testing.T) {
	t.Parallel()
	for phase, want := range map[string]string{
		"Failed": "one or more objects failed to apply", "Running": "one or more objects failed to apply", "Succeeded": "",
	} {
		app := observedApp("Synced", "Progressing", phase, false)
		app.Status.OperationState.Message = "one or more objects failed to apply"
		assert.Equal(t, want, observe(app).Message, phase)
	}
	degraded := observedApp("Synced", "Degraded", "Succeeded", false)
	degraded.Namespace, degraded.Name = "argocd", "gpu-operator.gpu-operator"
	assert.Equal(t, "a resource of the release is Degraded: argocd app get argocd/gpu-operator.gpu-operator shows which",
		observe(degraded).Message)
}

func observedApp(sync argov1.SyncStatusCode, health, phase string, requested bool) *argov1.Application {
	source := argov1.ApplicationSource{RepoURL: "registry.test/aicr/charts", Chart: "gpu-operator", TargetRevision: "sha256:old"}
	dest := argov1.ApplicationDestination{Server: InClusterServer, Namespace: "gpu-operator"}
	app := &argov1.Application{
		ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{
			wellknown.AnnotationRelease: "gpu-operator", wellknown.AnnotationRuntimeUID: "uid-1",
		}},
		Spec: argov1.ApplicationSpec{Source: source.DeepCopy(), Destination: dest,
			SyncPolicy: &argov1.SyncPolicy{Automated: &argov1.SyncPolicyAutomated{Prune: true}}},
		Status: argov1.ApplicationStatus{
			Sync:   argov1.SyncStatus{Status: sync, ComparedTo: argov1.ComparedTo{Source: source, Destination: dest}},
			Health: argov1.AppHealthStatus{Status: argov1.HealthStatusCode(health)},
		},
	}
	if phase != "" {
		app.Status.OperationState = &argov1.OperationState{Phase: argov1.OperationPhase(phase),
			StartedAt: metav1.NewTime(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))}
	}
	if requested {
		app.Operation = &argov1.Operation{Sync: &argov1.SyncOperation{}}
	}
	return app
}
