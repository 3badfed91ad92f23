package argocdcompat_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/argoproj/gitops-engine/pkg/health"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/test/chartrender"
)

// runHealthLua runs a health check as Argo CD's Lua VM does (util/lua in argo-cd v3): gopher-lua
// without the standard libraries but package, base and table, the object as the global obj,
// one second at most, and a returned table with status and message.
func runHealthLua(t *testing.T, script string, obj *unstructured.Unstructured) health.HealthStatus {
	t.Helper()
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	for name, open := range map[string]lua.LGFunction{
		lua.LoadLibName: lua.OpenPackage, lua.BaseLibName: lua.OpenBase, lua.TabLibName: lua.OpenTable,
	} {
		require.NoError(t, l.CallByParam(lua.P{Fn: l.NewFunction(open), NRet: 0, Protect: true}, lua.LString(name)))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	l.SetContext(ctx)
	l.SetGlobal("obj", luaValue(l, obj.Object))
	require.NoError(t, l.DoString(script))
	ret, ok := l.Get(-1).(*lua.LTable)
	require.True(t, ok, "the check returns a table")
	out := health.HealthStatus{
		Status:  health.HealthStatusCode(lua.LVAsString(ret.RawGetString("status"))),
		Message: lua.LVAsString(ret.RawGetString("message")),
	}
	assert.Contains(t, []health.HealthStatusCode{health.HealthStatusHealthy, health.HealthStatusProgressing,
		health.HealthStatusDegraded, health.HealthStatusSuspended, health.HealthStatusMissing, health.HealthStatusUnknown},
		out.Status, "a status Argo CD accepts")
	return out
}

// luaValue converts an object as Argo CD's decodeValue does.
func luaValue(l *lua.LState, value any) lua.LValue {
	switch v := value.(type) {
	case bool:
		return lua.LBool(v)
	case float64:
		return lua.LNumber(v)
	case int64:
		return lua.LNumber(v)
	case int:
		return lua.LNumber(v)
	case string:
		return lua.LString(v)
	case json.Number:
		return lua.LString(v)
	case []any:
		arr := l.CreateTable(len(v), 0)
		for _, item := range v {
			arr.Append(luaValue(l, item))
		}
		return arr
	case map[string]any:
		tbl := l.CreateTable(0, len(v))
		for k, item := range v {
			tbl.RawSetH(lua.LString(k), luaValue(l, item))
		}
		return tbl
	}
	return lua.LNil
}

func readHealthCheck(t *testing.T, file string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(chartrender.ChartDir(), "health", file))
	require.NoError(t, err)
	return string(raw)
}

func toUnstructured(t *testing.T, obj runtime.Object) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	require.NoError(t, err)
	return &unstructured.Unstructured{Object: m}
}

func cond(typ string, st metav1.ConditionStatus, reason, message string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: st, Reason: reason, Message: message}
}

// healthCase is an object, the health Argo CD shows for it and the status kstatus computes.
type healthCase struct {
	name    string
	obj     runtime.Object
	want    health.HealthStatusCode
	message string
	kstatus status.Status
}

func checkHealth(t *testing.T, script string, cases []healthCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			u := toUnstructured(t, c.obj)
			got := runHealthLua(t, script, u)
			assert.Equal(t, c.want, got.Status)
			assert.Equal(t, c.message, got.Message)
			res, err := status.Compute(u)
			require.NoError(t, err)
			assert.Equal(t, c.kstatus, res.Status, "kstatus (OPS-3)")
		})
	}
}

// TestClusterRuntimeHealth runs health/clusterruntime.lua against a ClusterRuntime in every
// state the operator writes (OPS-3), next to what kstatus computes for the same object.
func TestClusterRuntimeHealth(t *testing.T) {
	t.Parallel()
	runtimeWith := func(generation, observed int64, conds ...metav1.Condition) *aicrv1alpha1.ClusterRuntime {
		cr := &aicrv1alpha1.ClusterRuntime{
			TypeMeta:   metav1.TypeMeta{APIVersion: aicrv1alpha1.GroupVersion.String(), Kind: "ClusterRuntime"},
			ObjectMeta: metav1.ObjectMeta{Name: "cluster", Generation: generation},
		}
		cr.Status.ObservedGeneration, cr.Status.Conditions = observed, conds
		return cr
	}
	const yes, no = metav1.ConditionTrue, metav1.ConditionFalse
	checkHealth(t, readHealthCheck(t, "clusterruntime.lua"), []healthCase{
		{"an object without status waits for the operator", runtimeWith(1, 0),
			health.HealthStatusProgressing, "Waiting for the operator to report status", status.CurrentStatus},
		{"a spec the operator has not observed is Progressing", runtimeWith(3, 2, cond("Ready", yes, "RolledOut", "plan rolled out")),
			health.HealthStatusProgressing, "Waiting for the operator to observe generation 3", status.InProgressStatus},
		{"Ready True is Healthy", runtimeWith(2, 2, cond("Ready", yes, "RolledOut", "plan sha256:a rolled out and validated")),
			health.HealthStatusHealthy, "RolledOut: plan sha256:a rolled out and validated", status.CurrentStatus},
		{"Reconciling is Progressing", runtimeWith(2, 2, cond("Ready", no, "RollingOut", "rollout r: step 2/5 gpu-operator (Install)"),
			cond("Reconciling", yes, "RollingOut", "rollout r: step 2/5 gpu-operator (Install)")),
			health.HealthStatusProgressing, "RollingOut: rollout r: step 2/5 gpu-operator (Install)", status.InProgressStatus},
		{"a rollout awaiting approval keeps the runtime Progressing", runtimeWith(2, 2,
			cond("Ready", no, "RollingOut", "rollout r awaiting approval"), cond("Reconciling", yes, "RollingOut", "rollout r awaiting approval")),
			health.HealthStatusProgressing, "RollingOut: rollout r awaiting approval", status.InProgressStatus},
		{"Stalled is Degraded", runtimeWith(2, 2, cond("Ready", no, "RollingOut", "x"), cond("Stalled", yes, "AICRTimeout", "recipe job timed out")),
			health.HealthStatusDegraded, "AICRTimeout: recipe job timed out", status.FailedStatus},
		{"a failed rollout toward the target is Degraded", runtimeWith(2, 2,
			cond("Ready", no, "RollingOut", "x"), cond("Stalled", yes, "RolloutFailed", "rollout r failed: sync failed")),
			health.HealthStatusDegraded, "RolloutFailed: rollout r failed: sync failed", status.FailedStatus},
		{"a paused runtime is Suspended", runtimeWith(2, 2, cond("Ready", no, "Paused", "the runtime is paused (spec.paused)")),
			health.HealthStatusSuspended, "Paused: the runtime is paused (spec.paused)", status.InProgressStatus},
		{"a suspended engine is Suspended", runtimeWith(2, 2,
			cond("Ready", no, "EngineSuspended", "the deployment engine's automation is suspended")),
			health.HealthStatusSuspended, "EngineSuspended: the deployment engine's automation is suspended", status.InProgressStatus},
		{"Ready False alone waits", runtimeWith(2, 2, cond("Ready", no, "NoActivePlan", "no plan is rolled out yet")),
			health.HealthStatusProgressing, "NoActivePlan: no plan is rolled out yet", status.InProgressStatus},
	})
}

// TestRuntimeRolloutHealth runs health/runtimerollout.lua against a rollout in every phase, with
// the conditions the operator writes for it (OPS-3), next to what kstatus computes.
func TestRuntimeRolloutHealth(t *testing.T) {
	t.Parallel()
	rollout := func(phase aicrv1alpha1.Phase, outcome bool, conds ...metav1.Condition) *aicrv1alpha1.RuntimeRollout {
		ro := &aicrv1alpha1.RuntimeRollout{
			TypeMeta:   metav1.TypeMeta{APIVersion: aicrv1alpha1.GroupVersion.String(), Kind: "RuntimeRollout"},
			ObjectMeta: metav1.ObjectMeta{Name: "rollout-r", Generation: 1},
		}
		if outcome {
			ro.Labels = map[string]string{aicrv1alpha1.LabelOutcome: string(phase)}
		}
		ro.Status.ObservedGeneration, ro.Status.Phase, ro.Status.Conditions = 1, phase, conds
		if phase != "" {
			ro.Status.Message = "rollout-r " + string(phase)
		}
		return ro
	}
	approved := rollout(aicrv1alpha1.PhaseAwaitingApproval, false, cond("Stalled", metav1.ConditionTrue, "AwaitingApproval", "x"))
	approved.Generation = 2
	restored := rollout(aicrv1alpha1.PhaseSucceeded, true)
	restored.Status = aicrv1alpha1.RuntimeRolloutStatus{}
	const yes, no = metav1.ConditionTrue, metav1.ConditionFalse
	progressing := func(p aicrv1alpha1.Phase) []metav1.Condition {
		return []metav1.Condition{cond("Ready", no, string(p), "x"), cond("Reconciling", yes, string(p), "x")}
	}
	stalled := func(reason string) []metav1.Condition {
		return []metav1.Condition{cond("Ready", no, reason, "x"), cond("Stalled", yes, reason, "rollout-r "+reason)}
	}
	checkHealth(t, readHealthCheck(t, "runtimerollout.lua"), []healthCase{
		{"an object without status waits for the operator", rollout("", false),
			health.HealthStatusProgressing, "Waiting for the operator to report status", status.CurrentStatus},
		{"Pending is Progressing", rollout(aicrv1alpha1.PhasePending, false, progressing(aicrv1alpha1.PhasePending)...),
			health.HealthStatusProgressing, "rollout-r Pending", status.InProgressStatus},
		{"AwaitingApproval is Suspended", rollout(aicrv1alpha1.PhaseAwaitingApproval, false, stalled("AwaitingApproval")...),
			health.HealthStatusSuspended, "rollout-r AwaitingApproval", status.FailedStatus},
		{"an approval the operator has not observed yet is Progressing", approved,
			health.HealthStatusProgressing, "Waiting for the operator to observe generation 2", status.InProgressStatus},
		{"AwaitingAcknowledgement is Suspended", rollout(aicrv1alpha1.PhaseAwaitingAcknowledgement, false,
			stalled("AwaitingAcknowledgement")...),
			health.HealthStatusSuspended, "rollout-r AwaitingAcknowledgement", status.FailedStatus},
		{"Progressing is Progressing", rollout(aicrv1alpha1.PhaseProgressing, false, progressing(aicrv1alpha1.PhaseProgressing)...),
			health.HealthStatusProgressing, "rollout-r Progressing", status.InProgressStatus},
		{"a stalled Progressing rollout is Degraded", rollout(aicrv1alpha1.PhaseProgressing, false, stalled("TransitionBlocked")...),
			health.HealthStatusDegraded, "TransitionBlocked: rollout-r TransitionBlocked", status.FailedStatus},
		{"Validating is Progressing", rollout(aicrv1alpha1.PhaseValidating, false, progressing(aicrv1alpha1.PhaseValidating)...),
			health.HealthStatusProgressing, "rollout-r Validating", status.InProgressStatus},
		{"Succeeded is Healthy", rollout(aicrv1alpha1.PhaseSucceeded, true, cond("Ready", yes, "Succeeded", "x")),
			health.HealthStatusHealthy, "rollout-r Succeeded", status.CurrentStatus},
		{"Failed is Degraded", rollout(aicrv1alpha1.PhaseFailed, true, stalled("RolloutFailed")...),
			health.HealthStatusDegraded, "rollout-r Failed", status.FailedStatus},
		{"Expired is Degraded", rollout(aicrv1alpha1.PhaseExpired, true, stalled("RolloutExpired")...),
			health.HealthStatusDegraded, "rollout-r Expired", status.FailedStatus},
		{"Revoked is Degraded", rollout(aicrv1alpha1.PhaseRevoked, true, stalled("RolloutRevoked")...),
			health.HealthStatusDegraded, "rollout-r Revoked", status.FailedStatus},
		{"Superseded is Healthy", rollout(aicrv1alpha1.PhaseSuperseded, true, cond("Ready", yes, "Superseded", "x")),
			health.HealthStatusHealthy, "rollout-r Superseded", status.CurrentStatus},
		{"Orphaned is Healthy", rollout(aicrv1alpha1.PhaseOrphaned, true, cond("Ready", yes, "Orphaned", "x")),
			health.HealthStatusHealthy, "rollout-r Orphaned", status.CurrentStatus},
		{"a restored rollout without status keeps its outcome", restored,
			health.HealthStatusHealthy, "rollout Succeeded", status.CurrentStatus},
	})
}
