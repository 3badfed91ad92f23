package rollout

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/mocks"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/sealtest"
)

// TestReconcile_StepStartOfAFailedStatusWrite: a pass on a cache behind the status starts step 2
// (its engine write is made) and loses its status write; the StepStarted Event of step 2 is
// still recorded, once: not when the status read after the failure already records the start
// (whoever wrote it recorded the Event), and the next pass, which finds the step made and only
// judges it, records StepSucceeded (OPS-1; the flake of TestRolloutTransitionAndStallEventsOPS1).
// When the engine's reads show its writes at once (ports.ConsistentReads) and step 2 ready, the
// same pass ends the rollout and sets its outcome label before the lost write: then every Event of the pass is owed, since the next pass only
// settles the status, except those the status read live shows.
func TestReconcile_StepStartOfAFailedStatusWrite(t *testing.T) {
	started := metav1.NewTime(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	firstInFlight := aicrv1alpha1.RuntimeRolloutStatus{Phase: aicrv1alpha1.PhaseProgressing, CurrentStep: 1, Releases: []aicrv1alpha1.ReleaseStatus{
		{Release: "release-a", State: aicrv1alpha1.ReleaseInFlight, StartedAt: &started},
		{Release: "release-b", State: aicrv1alpha1.ReleasePending},
	}}
	secondInFlight := aicrv1alpha1.RuntimeRolloutStatus{Phase: aicrv1alpha1.PhaseProgressing, CurrentStep: 2, Releases: []aicrv1alpha1.ReleaseStatus{
		{Release: "release-a", State: aicrv1alpha1.ReleaseReady, StartedAt: &started},
		{Release: "release-b", State: aicrv1alpha1.ReleaseInFlight, StartedAt: &started},
	}}
	conflict := apierrors.NewConflict(schema.GroupResource{Group: aicrv1alpha1.GroupVersion.Group, Resource: "runtimerollouts"}, "rollout", nil)
	internal := apierrors.NewInternalError(fmt.Errorf("etcd unavailable"))
	everyEvent := []string{"StepSucceeded", "StepStarted", "StepSucceeded", "RolloutEnded"}
	tests := []struct {
		name string
		// live is the status of the API server, read past the cache after the failed write.
		live    aicrv1alpha1.RuntimeRolloutStatus
		failure error
		// ready: the engine's reads show its writes at once, and step 2 ready as soon as it is written.
		ready     bool
		wantErr   bool
		wantStart int
		want      []string
	}{
		{name: "the status read live does not record the start: recorded", live: firstInFlight, failure: conflict, wantStart: 1,
			want: []string{"StepStarted", "StepSucceeded"}},
		{name: "the status read live records the start: not recorded again", live: secondInFlight, failure: conflict},
		{name: "the write fails otherwise: recorded, the error returned", live: firstInFlight, wantErr: true, wantStart: 1,
			failure: internal, want: []string{"StepStarted"}},
		{name: "the pass ended the rollout, the status read live shows none of it: every Event recorded", ready: true,
			live: firstInFlight, failure: conflict, wantStart: 1, want: everyEvent},
		{name: "the pass ended the rollout, the status read live shows step 2 started: the Events after it", ready: true,
			live: secondInFlight, failure: conflict, want: []string{"StepSucceeded", "RolloutEnded"}},
		{name: "the pass ended the rollout, the write fails otherwise: every Event recorded, the error returned", ready: true,
			live: firstInFlight, failure: internal, wantErr: true, wantStart: 1, want: everyEvent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recorder := record.NewFakeRecorder(16)
			r, key := lostStartReconciler(t, firstInFlight, tt.live, tt.failure, tt.ready, recorder)
			_, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: key})
			assert.Equal(t, tt.wantErr, err != nil, "error: %v", err)
			close(recorder.Events)
			var reasons []string
			starts := 0
			for e := range recorder.Events {
				reasons = append(reasons, strings.Fields(e)[1])
				if strings.Contains(e, "StepStarted") && strings.Contains(e, "step 2/2 release-b (Install)") {
					starts++
				}
			}
			assert.Equal(t, tt.want, reasons)
			assert.Equal(t, tt.wantStart, starts, "the StepStarted Event of step 2")
		})
	}
}

// lostStartReconciler returns a reconciler whose cache serves the rollout with the status
// cached, whose live reads serve live, whose first status write fails with failure, and whose
// engine (a gomock double) shows release-a ready and release-b missing until it is applied, then
// still syncing or, with readyOnceApplied, ready at once on reads that show its writes at once.
func lostStartReconciler(t *testing.T, cached, live aicrv1alpha1.RuntimeRolloutStatus, failure error, readyOnceApplied bool,
	recorder record.EventRecorder) (*Reconciler, client.ObjectKey) {
	t.Helper()
	const namespace, uid = "aicr-system", "0b7e4a51-3f9a-4c0d-8b2e-1a2b3c4d5e6f"
	scheme := runtime.NewScheme()
	require.NoError(t, aicrv1alpha1.AddToScheme(scheme))
	require.NoError(t, corev1.AddToScheme(scheme))
	cr := &aicrv1alpha1.ClusterRuntime{ObjectMeta: metav1.ObjectMeta{Name: aicrv1alpha1.ClusterRuntimeName, UID: uid},
		Spec: aicrv1alpha1.ClusterRuntimeSpec{Validation: aicrv1alpha1.ValidationPolicy{Deployment: aicrv1alpha1.ValidationDisabled}}}
	plan := twoReleasePlan(t, uid)
	cr.Status.CandidatePlanDigest = plan.Digest
	ro := &aicrv1alpha1.RuntimeRollout{
		ObjectMeta: metav1.ObjectMeta{Name: "rollout-0123456789abcdef-1"},
		Spec: aicrv1alpha1.RuntimeRolloutSpec{RuntimeUID: uid, ToPlanDigest: plan.Digest, Steps: []aicrv1alpha1.Step{
			{Release: "release-a", Operation: aicrv1alpha1.OperationInstall}, {Release: "release-b", Operation: aicrv1alpha1.OperationInstall},
		}},
		Status: live,
	}
	base := fake.NewClientBuilder().WithScheme(scheme).WithObjects(cr, ro).WithStatusSubresource(cr, ro).Build()
	writer := planstore.Writer{Client: base, Reader: base, Recorder: record.NewFakeRecorder(4), Namespace: namespace, Sealer: sealtest.New()}
	stall, err := writer.Write(context.Background(), cr, planstore.Write{Plan: plan})
	require.NoError(t, err)
	require.Nil(t, stall)
	failed := false
	c := interceptor.NewClient(base, interceptor.Funcs{
		SubResourceUpdate: func(ctx context.Context, cl client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			if !failed {
				failed = true
				return failure
			}
			return cl.SubResource(sub).Update(ctx, obj, opts...)
		},
	})
	ctl := gomock.NewController(t)
	clock := mocks.NewMockClock(ctl)
	clock.EXPECT().Now().Return(time.Date(2026, 11, 29, 12, 1, 0, 0, time.UTC)).AnyTimes()
	engine := mocks.NewMockDeploymentEngine(ctl)
	engine.EXPECT().SpecDigest(gomock.Any()).Return("sha256:planned", nil).AnyTimes()
	ready := func(ref ports.ReleaseRef) ports.ReleaseStatus {
		return ports.ReleaseStatus{Ref: ref, Owner: ports.ReleaseOwner{RuntimeUID: uid, PlanDigest: plan.Digest, Rollout: ro.Name},
			DesiredRevision: "1", SyncedRevision: "1", Health: ports.HealthHealthy, Operation: ports.OperationSucceeded,
			SpecDigest: "sha256:planned"}
	}
	applied := false
	engine.EXPECT().Status(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, ref ports.ReleaseRef) (ports.ReleaseStatus, error) {
		switch {
		case ref.ID == "release-b" && !applied:
			return ports.ReleaseStatus{}, ports.ErrTargetNotFound
		case ref.ID == "release-b" && !readyOnceApplied:
			syncing := ready(ref)
			syncing.SyncedRevision, syncing.Health, syncing.Operation = "0", ports.HealthProgressing, ports.OperationRunning
			return syncing, nil
		}
		return ready(ref), nil
	}).AnyTimes()
	engine.EXPECT().Apply(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, spec ports.ReleaseSpec) error {
		require.Equal(t, "release-b", spec.Ref.ID, "only the second step is started")
		applied = true
		return nil
	}).Times(1)
	engine.EXPECT().List(gomock.Any()).DoAndReturn(func(context.Context) ([]ports.ReleaseStatus, error) {
		return []ports.ReleaseStatus{ready(plan.Releases[0].Ref()), ready(plan.Releases[1].Ref())}, nil
	}).AnyTimes()
	cache := staleReader{Client: c, status: cached}
	plans := planstore.NewReader(base, namespace, sealtest.New())
	return NewReconciler(cache, base, domain.Ports{Engine: consistentEngine{engine, readyOnceApplied}, Clock: clock, Sealer: sealtest.New()}, plans, recorder, shared.Options{}),
		client.ObjectKeyFromObject(ro)
}

// consistentEngine is a gomock engine that reports whether its reads show its writes at once.
type consistentEngine struct {
	*mocks.MockDeploymentEngine
	consistent bool
}

func (e consistentEngine) ReadsItsWrites() bool { return e.consistent }

// twoReleasePlan is a plan of two independent releases for runtimeUID.
func twoReleasePlan(t *testing.T, runtimeUID string) *domain.Plan {
	t.Helper()
	p := &domain.Plan{SchemaVersion: domain.PlanSchemaVersion, RuntimeUID: runtimeUID, Source: domain.SourceResolved,
		AICRVersion: "1.0.0", HasRecipe: true}
	for _, id := range []string{"release-a", "release-b"} {
		rel := domain.Release{ID: id, Namespace: "components", Component: id, Kind: ports.KindUpstream,
			Chart: ports.ChartSource{Repository: "oci://registry.example.com/charts", Name: id, Version: "1.0.0",
				ManifestDigest: "sha256:" + strings.Repeat("0", 64)},
			Values: map[string]any{"replicas": 1}}
		d, err := domain.Digest(rel.Values)
		require.NoError(t, err)
		rel.ValuesDigest = d
		p.Releases = append(p.Releases, rel)
	}
	var err error
	p.Digest, err = domain.DesiredStateDigest(p.Releases)
	require.NoError(t, err)
	return p
}
