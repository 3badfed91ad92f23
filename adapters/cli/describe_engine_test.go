package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/NVIDIA/aicr/adapters/cli"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/planstore/planstoretest"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// fakeEngine answers Status from statuses, ErrTargetNotFound for a release it lacks, or err
// for every release when set.
type fakeEngine struct {
	statuses map[ports.ReleaseRef]ports.ReleaseStatus
	err      error
}

// plannedDigest is the spec digest fakeEngine renders for every release, and engineStatus's.
const plannedDigest = "sha256:planned"

// SpecDigest renders plannedDigest for every release.
func (f fakeEngine) SpecDigest(ports.ReleaseSpec) (string, error) { return plannedDigest, nil }

func (f fakeEngine) Status(_ context.Context, ref ports.ReleaseRef) (ports.ReleaseStatus, error) {
	if f.err != nil {
		return ports.ReleaseStatus{}, f.err
	}
	st, ok := f.statuses[ref]
	if !ok {
		return ports.ReleaseStatus{}, fmt.Errorf("application %s: %w", ref, ports.ErrTargetNotFound)
	}
	return st, nil
}

const engineRuntimeUID = "uid-runtime"

// engineStatus is the engine's view of a release this runtime owns, asking for the planned
// spec: synced when desired and synced revisions are equal.
func engineStatus(desired, synced string, health ports.Health, op ports.OperationState, msg string) ports.ReleaseStatus {
	return ports.ReleaseStatus{Owner: ports.ReleaseOwner{RuntimeUID: engineRuntimeUID}, DesiredRevision: desired,
		SyncedRevision: synced, Health: health, Operation: op, Message: msg, SpecDigest: plannedDigest}
}

// handEdited is engineStatus of an Application Argo CD reports synced and healthy whose spec
// was edited outside the operator.
func handEdited() *ports.ReleaseStatus {
	st := engineStatus("r9", "r9", ports.HealthHealthy, ports.OperationSucceeded, "")
	st.SpecDigest = "sha256:edited"
	return &st
}

// engineDescribed is the engine part of describe -o json.
type engineDescribed struct {
	Steps []struct {
		Engine json.RawMessage `json:"engine"`
	} `json:"steps"`
}

// TestDescribe_EngineStatusBesideTheState: next to the state the operator recorded, describe
// shows Argo CD's sync and health of each step's Application, found by the namespace the plan
// gives the release, with a sync that runs or failed and Argo CD's message under the steps; a
// missing Application is "not found", one another runtime owns is "foreign" without its health;
// a caller who may not read Applications, or a cluster without Argo CD or the runtime, gets one
// warning and the steps without those columns. -o json carries the same.
func TestDescribe_EngineStatusBesideTheState(t *testing.T) {
	t.Parallel()
	certManager := ports.ReleaseRef{ID: "cert-manager", Namespace: "cert-manager"}
	gpuOperator := ports.ReleaseRef{ID: "gpu-operator", Namespace: "gpu-operator"}
	forbidden := fmt.Errorf("status of %s: %w: %w", gpuOperator, ports.ErrUnauthorized,
		apierrors.NewForbidden(schema.GroupResource{Group: "argoproj.io", Resource: "applications"}, "x", nil))
	tests := []struct {
		name      string
		gpu       *ports.ReleaseStatus
		err       error
		noRuntime bool
		// row is the pattern of gpu-operator's SYNC and HEALTH cells, "" when not shown.
		row, detail, warning string
		engine               string
	}{
		{name: "synced and healthy", gpu: ptr(engineStatus("r1", "r1", ports.HealthHealthy, ports.OperationSucceeded, "")),
			row: `Synced\s+Healthy`, engine: `{"sync":"Synced","health":"Healthy","operation":"Succeeded"}`},
		{name: "out of sync while Argo CD syncs",
			gpu: ptr(engineStatus("r2", "r1", ports.HealthProgressing, ports.OperationRunning, "waiting for healthy state")),
			row: `OutOfSync\s+Progressing`, detail: "2/2 gpu-operator: sync Running: waiting for healthy state",
			engine: `{"sync":"OutOfSync","health":"Progressing","operation":"Running","message":"waiting for healthy state"}`},
		{name: "degraded after a failed sync",
			gpu: ptr(engineStatus("r2", "r2", ports.HealthDegraded, ports.OperationFailed, "Deployment gpu-operator/x:\ncrash loop")),
			row: `Synced\s+Degraded`, detail: "2/2 gpu-operator: sync Failed: Deployment gpu-operator/x: crash loop",
			engine: `{"sync":"Synced","health":"Degraded","operation":"Failed","message":"Deployment gpu-operator/x:\ncrash loop"}`},
		{name: "no Application", row: `not found\s+-`, engine: `{"sync":"NotFound"}`},
		{name: "edited outside the operator, synced and healthy", gpu: handEdited(), row: `Drifted\s+Healthy`,
			detail: "2/2 gpu-operator: drifted: its spec differs from what plan {plan} renders for it " +
				"(edited outside the operator): the Application's spec digest is sha256:edited, the plan's " + plannedDigest,
			engine: `{"sync":"Drifted","health":"Healthy","operation":"Succeeded","drift":"its spec differs from what plan {plan} renders for it (edited outside the operator): the Application's spec digest is ` +
				`sha256:edited, the plan's ` + plannedDigest + `"}`},
		{name: "another runtime's Application",
			gpu: &ports.ReleaseStatus{Owner: ports.ReleaseOwner{RuntimeUID: "uid-other"}, DesiredRevision: "r1",
				SyncedRevision: "r1", Health: ports.HealthHealthy, Message: "foreign detail"},
			row:    `foreign\s+-`,
			detail: "2/2 gpu-operator: its Application records runtime uid-other, not this one: its state is not this step's",
			engine: `{"sync":"Foreign","ownerRuntimeUID":"uid-other"}`},
		{name: "an Application the operator did not write",
			gpu:    &ports.ReleaseStatus{DesiredRevision: "r1", SyncedRevision: "r1", Health: ports.HealthHealthy},
			row:    `foreign\s+-`,
			detail: "2/2 gpu-operator: its Application records no runtime (not written by the operator): its state is not this step's",
			engine: `{"sync":"Foreign"}`},
		{name: "reading Applications forbidden", err: forbidden,
			warning: "warning: Argo CD status not shown: getting applications.argoproj.io in namespace gitops is forbidden to you\n"},
		{name: "Argo CD not installed", err: fmt.Errorf("status of %s: %w", gpuOperator, ports.ErrEngineMissing),
			warning: "warning: Argo CD status not shown: the cluster serves no applications.argoproj.io (Argo CD is not installed)\n"},
		{name: "the runtime is gone", noRuntime: true,
			warning: `warning: Argo CD status not shown: get clusterruntime cluster: clusterruntimes.operator.aicr.run "cluster" not found ` +
				"(the runtime tells which Applications are its own)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			from := describedPlan(t, "1.0.0", "nvcr.io/nvidia")
			to := describedPlan(t, "1.1.0", "nvcr.io/nvidia")
			ro := upgradeRollout(from, to)
			tt.detail, tt.engine = strings.ReplaceAll(tt.detail, "{plan}", to.Digest), strings.ReplaceAll(tt.engine, "{plan}", to.Digest)
			ro.Status = aicrv1alpha1.RuntimeRolloutStatus{Phase: aicrv1alpha1.PhaseProgressing, Releases: []aicrv1alpha1.ReleaseStatus{
				{Release: "cert-manager", State: aicrv1alpha1.ReleaseReady}, {Release: "gpu-operator", State: "InFlight"}}}
			aicr := []runtime.Object{ro}
			if !tt.noRuntime {
				aicr = append(aicr, &aicrv1alpha1.ClusterRuntime{ObjectMeta: metav1.ObjectMeta{Name: "cluster", UID: engineRuntimeUID}})
			}
			engine := fakeEngine{err: tt.err, statuses: map[ports.ReleaseRef]ports.ReleaseStatus{
				certManager: engineStatus("r1", "r1", ports.HealthHealthy, ports.OperationNone, ""),
			}}
			if tt.gpu != nil {
				engine.statuses[gpuOperator] = *tt.gpu
			}
			var namespace string
			withEngine := func(o *cli.Options) {
				o.Engine = func(_ *rest.Config, ec cli.EngineConfig) (cli.EngineReader, error) {
					namespace = ec.Namespace
					return engine, nil
				}
			}
			plans := storedPlans(t, nil, planstoretest.Plan{Plan: from}, planstoretest.Plan{Plan: to})
			describe := func(args ...string) (string, string) {
				out, errOut, code, _ := fakeRunConfigured(t, aicr, plans, "alice", withEngine,
					append([]string{"describe", ro.Name, "--engine-namespace", "gitops"}, args...)...)
				require.Equal(t, 0, code, errOut)
				return out, errOut
			}

			out, errOut := describe()
			assert.Equal(t, tt.warning, errOut)
			if tt.row == "" {
				assert.Regexp(t, `\n\s+STEP\s+RELEASE\s+OPERATION\s+ASSESSMENT\s+CRDS\s+STATE\n`, out, "no engine columns")
				assert.Regexp(t, `\n\s+2/2\s+gpu-operator\s+Upgrade\s+safe\s+-\s+in flight\n`, out)
			} else {
				assert.Equal(t, "gitops", namespace, "the engine reads --engine-namespace")
				assert.Regexp(t, `\n\s+STEP\s+RELEASE\s+OPERATION\s+ASSESSMENT\s+CRDS\s+SYNC\s+HEALTH\s+STATE\n`, out)
				assert.Regexp(t, `\n\s+1/2\s+cert-manager\s+Verify\s+none\s+-\s+Synced\s+Healthy\s+Ready\n`, out)
				assert.Regexp(t, `\n\s+2/2\s+gpu-operator\s+Upgrade\s+safe\s+-\s+`+tt.row+`\s+in flight\n`, out)
			}
			if tt.detail == "" {
				assert.NotContains(t, out, "Argo CD details:")
			} else {
				assert.Contains(t, out, "in flight\nArgo CD details:\n  "+tt.detail+"\n\n")
			}
			assert.NotContains(t, out, "foreign detail", "a foreign Application's message is not the step's")

			out, _ = describe("-o", "json")
			var doc engineDescribed
			require.NoError(t, json.Unmarshal([]byte(out), &doc))
			require.Len(t, doc.Steps, 2)
			if tt.engine == "" {
				assert.NotContains(t, out, `"engine"`, "-o json without the engine columns")
				return
			}
			assert.JSONEq(t, `{"sync":"Synced","health":"Healthy"}`, string(doc.Steps[0].Engine))
			assert.JSONEq(t, tt.engine, string(doc.Steps[1].Engine))
		})
	}
}

// TestDescribe_EngineStatusByThePlanHoldingTheRelease: a Remove step's release is found by the
// namespace the from plan gives it, every other step's by the target plan's; a step whose plan
// is not readable shows "unknown", and the engine is not asked about it.
func TestDescribe_EngineStatusByThePlanHoldingTheRelease(t *testing.T) {
	t.Parallel()
	from, err := domain.BuildPlan(domain.PlanInput{RuntimeUID: "uid-1", Bundle: ports.Bundle{
		Layout: ports.LayoutV1, AICRVersion: "1.1.0", Releases: []ports.BundleRelease{
			{Name: "gpu-operator", Component: "gpu-operator", Namespace: "gpu-operator", Kind: ports.KindUpstream,
				Chart: ports.ChartSource{Repository: "https://charts.example", Name: "gpu-operator", Version: "1.0.0"}},
			{Name: "old-exporter", Component: "old-exporter", Namespace: "monitoring", Kind: ports.KindUpstream,
				Chart: ports.ChartSource{Repository: "https://charts.example", Name: "old-exporter", Version: "1.0.0"}},
		}}})
	require.NoError(t, err)
	ro := pendingRollout()
	ro.Spec.FromPlanDigest, ro.Spec.ToPlanDigest = from.Digest, "sha256:"+strings.Repeat("b", 64)
	ro.Spec.Steps = []aicrv1alpha1.Step{{Release: "gpu-operator", Operation: aicrv1alpha1.OperationUpgrade},
		{Release: "old-exporter", Operation: aicrv1alpha1.OperationRemove}}
	cr := &aicrv1alpha1.ClusterRuntime{ObjectMeta: metav1.ObjectMeta{Name: "cluster", UID: engineRuntimeUID}}
	engine := fakeEngine{statuses: map[ports.ReleaseRef]ports.ReleaseStatus{
		{ID: "old-exporter", Namespace: "monitoring"}:   engineStatus("r1", "r1", ports.HealthDegraded, ports.OperationNone, ""),
		{ID: "gpu-operator", Namespace: "gpu-operator"}: engineStatus("r1", "r1", ports.HealthHealthy, ports.OperationNone, ""),
	}}
	out, errOut, code, _ := fakeRunConfigured(t, []runtime.Object{ro, cr}, storedPlans(t, nil, planstoretest.Plan{Plan: from}),
		"alice", func(o *cli.Options) {
			o.Engine = func(*rest.Config, cli.EngineConfig) (cli.EngineReader, error) { return engine, nil }
		}, "describe", ro.Name)
	require.Equal(t, 0, code, errOut)
	assert.Empty(t, errOut)
	assert.Regexp(t, `\n\s+1/2\s+gpu-operator\s+Upgrade\s+none\s+-\s+unknown\s+-\s+unknown\n`, out,
		"the target plan is gone: the from plan's namespace is not the upgrade's")
	assert.Regexp(t, `\n\s+2/2\s+old-exporter\s+Remove\s+none\s+-\s+Synced\s+Degraded\s+unknown\n`, out)
}

func ptr[T any](v T) *T { return &v }
