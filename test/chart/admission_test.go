package chart_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Who refuses an attempt: one of the chart's ValidatingAdmissionPolicies, the CRD's own
// validation rules, or RBAC.
const (
	byApproval = "VAP aicr-operator-approval"
	byPlans    = "VAP aicr-operator-plans"
	byRuntime  = "VAP aicr-operator-clusterruntime"
	byCRD      = "CRD validation rule"
	byRBAC     = "RBAC"
)

// bypass is one attempt to get around the chart's admission rules or RBAC.
type bypass struct {
	name string
	by   string
	want string
	try  func(f fx) error
}

func approvalBypasses() []bypass {
	return []bypass{
		{"ADM-1 editor of ClusterRuntime approves", byApproval,
			"ADM-1: editor-eve may not update runtimerollouts/approve",
			func(f fx) error { return editor().approve(f.newRollout(), editorUser) }},
		{"ADM-1 editor of ClusterRuntime revokes", byApproval,
			"ADM-1: editor-eve may not update runtimerollouts/approve",
			func(f fx) error { return editor().revoke(f.approvedRollout(), editorUser) }},
		{"ADM-1 editor of ClusterRuntime acknowledges", byApproval,
			"ADM-1: editor-eve may not update runtimerollouts/approve",
			func(f fx) error {
				return editor().acknowledge(f.approvedRollout(), [2]string{"gpu-operator", editorUser})
			}},
		{"ADM-1 approver of another rollout approves this one", byApproval,
			"ADM-1: scoped-sam may not update runtimerollouts/approve",
			func(f fx) error { return as(scopedUser).approve(f.newRollout(), scopedUser) }},
		{"ADM-2 approvedBy set to another user", byApproval,
			"ADM-2: spec.approval.approvedBy must be the requesting user approver-alice, not approver-bob",
			func(f fx) error { return approver().approve(f.newRollout(), groupApprover) }},
		{"ADM-2 group approver approves in a colleague's name", byApproval,
			"ADM-2: spec.approval.approvedBy must be the requesting user approver-bob, not approver-alice",
			func(f fx) error { return groupMember().approve(f.newRollout(), approverUser) }},
		{"ADM-2 revokedBy spoofed", byApproval,
			"ADM-2: spec.approval.revokedBy must be the requesting user approver-bob, not approver-alice",
			func(f fx) error { return groupMember().revoke(f.approvedRollout(), approverUser) }},
		{"ADM-2 acknowledgedBy spoofed", byApproval,
			"ADM-2: a new acknowledgement must be acknowledgedBy the requesting user approver-alice",
			func(f fx) error {
				return approver().acknowledge(f.approvedRollout(), [2]string{"gpu-operator", groupApprover})
			}},
		{"ADM-1 editor of ClusterRuntime overrides a disruptive step", byApproval,
			"ADM-1: editor-eve may not update runtimerollouts/approve",
			func(f fx) error { return editor().override(f.approvedRollout(), [2]string{"gpu-operator", editorUser}) }},
		{"ADM-2 overriddenBy spoofed", byApproval,
			"ADM-2: a new disruption override must be overriddenBy the requesting user approver-alice",
			func(f fx) error { return approver().override(f.newRollout(), [2]string{"gpu-operator", groupApprover}) }},
		{"ADM-2 an old overriddenBy does not carry over to another release", byApproval,
			"ADM-2: a new disruption override must be overriddenBy the requesting user approver-bob",
			func(f fx) error {
				name := f.newRollout()
				alice := [2]string{"gpu-operator", approverUser}
				require.NoError(f.t, approver().override(name, alice))
				return groupMember().override(name, alice, [2]string{"nvidia-dra-driver-gpu", approverUser})
			}},
		{"ADM-4 operator ServiceAccount overrides a disruptive step", byApproval,
			"ADM-4: the operator's identity never writes spec.approval",
			func(f fx) error {
				return operatorClient().override(f.newRollout(), [2]string{"gpu-operator", operatorUser})
			}},
		{"RO-3 an override is set once: its reason cannot change", byCRD,
			"disruption overrides are append-only: an override cannot be changed",
			func(f fx) error {
				name := f.newRollout()
				require.NoError(f.t, approver().override(name, [2]string{"gpu-operator", approverUser}))
				return approver().patch(name, approval(map[string]any{"disruptionOverrides": []any{map[string]any{
					"release": "gpu-operator", "overriddenBy": approverUser, "overriddenAt": ackedAt, "reason": "changed my mind"}}}))
			}},
		{"RO-3 an override is set once: it cannot be removed", byCRD,
			"disruption overrides are append-only: an override cannot be removed",
			func(f fx) error {
				name := f.newRollout()
				require.NoError(f.t, approver().override(name, [2]string{"gpu-operator", approverUser}))
				return approver().override(name)
			}},
		{"ADM-4 operator ServiceAccount writes an approval", byApproval,
			"ADM-4: the operator's identity never writes spec.approval",
			func(f fx) error { return operatorClient().approve(f.newRollout(), operatorUser) }},
		{"ADM-4 operator ServiceAccount revokes", byApproval,
			"ADM-4: the operator's identity never writes spec.approval",
			func(f fx) error { return operatorClient().revoke(f.approvedRollout(), operatorUser) }},
		{"ADM-4 operator ServiceAccount acknowledges", byApproval,
			"ADM-4: the operator's identity never writes spec.approval",
			func(f fx) error {
				return operatorClient().acknowledge(f.approvedRollout(), [2]string{"gpu-operator", operatorUser})
			}},
		{"ADM-4 operator creates a rollout with an approval", byApproval,
			"ADM-4: a RuntimeRollout cannot be created with spec.approval",
			func(fx) error { return createRollout(operatorClient(), withApproval) }},
		{"ADM-4 approval request also sets a label", byApproval,
			"ADM-4: a request that changes spec.approval changes nothing else",
			func(f fx) error {
				body := approval(map[string]any{"approvedBy": approverUser, "expiresAt": expiresAt, "reason": "r"})
				body["metadata"] = map[string]any{"labels": map[string]any{"example.com/approved": "true"}}
				return approver().patch(f.newRollout(), body)
			}},
		{"ADM-4 approval request also adds a finalizer", byApproval,
			"ADM-4: a request that changes spec.approval changes nothing else",
			func(f fx) error {
				body := approval(map[string]any{"approvedBy": approverUser, "expiresAt": expiresAt, "reason": "r"})
				body["metadata"] = map[string]any{"finalizers": []any{"example.com/hold"}}
				return approver().patch(f.newRollout(), body)
			}},
		{"ADM-4 RO-3 approval request also changes spec.deadline", byCRD,
			"spec.deadline is immutable",
			func(f fx) error {
				body := approval(map[string]any{"approvedBy": approverUser, "expiresAt": expiresAt, "reason": "r"})
				body["spec"].(map[string]any)["deadline"] = "2031-01-01T00:00:00Z"
				return approver().patch(f.newRollout(), body)
			}},
		{"ADM-1 a validator ServiceAccount of an aicr validate run (cluster-admin) approves", byApproval,
			"ADM-1: " + runValidatorUser + " is a ServiceAccount of the aicr-operator chart",
			func(f fx) error { return runValidatorClient().approve(f.newRollout(), runValidatorUser) }},
		{"ADM-1 a validator ServiceAccount of an aicr validate run (cluster-admin) acknowledges", byApproval,
			"ADM-1: " + runValidatorUser + " is a ServiceAccount of the aicr-operator chart",
			func(f fx) error {
				return runValidatorClient().acknowledge(f.approvedRollout(), [2]string{"gpu-operator", runValidatorUser})
			}},
		{"ADM-1 Job ServiceAccount bound to the approver role approves", byApproval,
			"ADM-1: " + jobsUser + " is a ServiceAccount of the aicr-operator chart",
			func(f fx) error { return jobsClient().approve(f.newRollout(), jobsUser) }},
		{"ADM-2 RO-5 acknowledgement forged through a release that carries =user", byCRD,
			"spec.approval.acknowledgements[0].release in body should match",
			func(f fx) error {
				// Joined as release=acknowledgedBy, {gpu-operator=x, approver-bob} and
				// {gpu-operator, x=approver-bob} are one string, so the second passed as old.
				// The release pattern refuses the first; without it the policy, which now
				// compares the fields, refuses the second with ADM-2.
				name := f.approvedRollout()
				planted := [2]string{"gpu-operator=x", groupApprover}
				if err := groupMember().acknowledge(name, planted); err != nil {
					return err
				}
				return groupMember().acknowledge(name, planted, [2]string{"gpu-operator", "x=" + groupApprover})
			}},
		{"ADM-2 an old acknowledgedBy does not carry over to another release", byApproval,
			"ADM-2: a new acknowledgement must be acknowledgedBy the requesting user approver-bob",
			func(f fx) error {
				name := f.approvedRollout()
				alice := [2]string{"gpu-operator", approverUser}
				require.NoError(f.t, approver().acknowledge(name, alice))
				return groupMember().acknowledge(name, alice, [2]string{"nvsentinel", approverUser})
			}},
		{"ADM-4 approval request also sets an annotation", byApproval,
			"ADM-4: a request that changes spec.approval changes nothing else",
			func(f fx) error {
				body := approval(map[string]any{"approvedBy": approverUser, "expiresAt": expiresAt, "reason": "r"})
				body["metadata"] = map[string]any{"annotations": map[string]any{"example.com/ticket": "chg-1234"}}
				return approver().patch(f.newRollout(), body)
			}},
		{"ADM-4 approval request also sets an owner reference", byApproval,
			"ADM-4: a request that changes spec.approval changes nothing else",
			func(f fx) error {
				body := approval(map[string]any{"approvedBy": approverUser, "expiresAt": expiresAt, "reason": "r"})
				body["metadata"] = map[string]any{"ownerReferences": []any{map[string]any{
					"apiVersion": "operator.aicr.run/v1alpha1", "kind": "ClusterRuntime", "name": "cluster", "uid": uid,
				}}}
				return approver().patch(f.newRollout(), body)
			}},
		{"RO-4 clearing an approval", byCRD,
			"an approval is set once: it can be neither cleared, changed nor extended",
			func(f fx) error {
				return approver().patch(f.approvedRollout(), map[string]any{"spec": map[string]any{"approval": nil}})
			}},
		{"RO-4 extending an approval", byCRD,
			"an approval is set once: it can be neither cleared, changed nor extended",
			func(f fx) error {
				return approver().patch(f.approvedRollout(), approval(map[string]any{"expiresAt": "2030-06-01T00:00:00Z"}))
			}},
		{"RO-4 second approver replaces an approval", byCRD,
			"an approval is set once: it can be neither cleared, changed nor extended",
			func(f fx) error { return groupMember().approve(f.approvedRollout(), groupApprover) }},
		{"RO-4 revoking without an approval", byCRD,
			"a revocation needs",
			func(f fx) error { return approver().revoke(f.newRollout(), approverUser) }},
		{"RO-4 acknowledging without an approval", byCRD,
			"an acknowledgement needs",
			func(f fx) error {
				return approver().acknowledge(f.newRollout(), [2]string{"gpu-operator", approverUser})
			}},
		{"RO-4 acknowledging one release twice", byCRD,
			"at most one acknowledgement per release",
			func(f fx) error {
				name := f.approvedRollout()
				ack := [2]string{"gpu-operator", approverUser}
				require.NoError(f.t, approver().acknowledge(name, ack))
				return approver().acknowledge(name, ack, ack)
			}},
		{"ADM-3 revoking a rollout with an outcome label", byApproval,
			"ADM-3: a rollout that carries the operator.aicr.run/outcome label or is in phase Validating cannot be revoked",
			func(f fx) error {
				name := f.approvedRollout()
				require.NoError(f.t, operatorClient().label(name, outcome, "Succeeded"))
				return approver().revoke(name, approverUser)
			}},
		{"ADM-3 revoking a rollout in phase Validating", byApproval,
			"ADM-3: a rollout that carries the operator.aicr.run/outcome label or is in phase Validating cannot be revoked",
			func(f fx) error {
				name := f.approvedRollout()
				require.NoError(f.t, operatorClient().patchStatus(name, map[string]any{"phase": "Validating"}))
				return approver().revoke(name, approverUser)
			}},
	}
}

func rolloutOwnershipBypasses() []bypass {
	onlyOperator := "RO-14: only the operator's ServiceAccount (" + operatorUser + ") creates RuntimeRollouts"
	operatorMeta := "RO-6: operator.aicr.run/ labels and annotations on a rollout are written only by the operator"
	return []bypass{
		{"RO-14 non-operator creates a rollout with approvalRequired false", byApproval, onlyOperator,
			func(fx) error {
				return createRollout(editor(), func(o *unstructured.Unstructured) {
					o.Object["spec"].(map[string]any)["approvalRequired"] = false
				})
			}},
		{"RO-14 non-operator creates a rollout with an outcome label", byApproval, onlyOperator,
			func(fx) error {
				return createRollout(editor(), func(o *unstructured.Unstructured) {
					o.SetLabels(map[string]string{outcome: "Succeeded"})
				})
			}},
		{"RO-14 non-operator creates a rollout with an approval", byApproval, onlyOperator,
			func(fx) error { return createRollout(editor(), withApproval) }},
		{"RO-14 cluster administrator creates a rollout", byApproval, onlyOperator,
			func(fx) error { return createRollout(admin(), nil) }},
		{"RO-6 approver sets the outcome label", byApproval,
			"RO-6: the operator.aicr.run/outcome label is set once, only by the operator",
			func(f fx) error { return approver().label(f.newRollout(), outcome, "Succeeded") }},
		{"RO-6 editor removes the outcome label", byApproval,
			"RO-6: the operator.aicr.run/outcome label is set once, only by the operator",
			func(f fx) error {
				name := f.newRollout()
				require.NoError(f.t, operatorClient().label(name, outcome, "Failed"))
				return editor().label(name, outcome, "")
			}},
		{"RO-6 operator changes an outcome already set", byApproval,
			"RO-6: the operator.aicr.run/outcome label is set once, only by the operator",
			func(f fx) error {
				name := f.newRollout()
				require.NoError(f.t, operatorClient().label(name, outcome, "Failed"))
				return operatorClient().label(name, outcome, "Succeeded")
			}},
		{"RO-6 RO-1 approver rewrites the transition label", byApproval, operatorMeta,
			func(f fx) error {
				return approver().label(f.newRollout(), "operator.aicr.run/transition", "0000000000000000")
			}},
		{"RO-6 editor removes the runtime-uid label", byApproval, operatorMeta,
			func(f fx) error { return editor().label(f.newRollout(), "operator.aicr.run/runtime-uid", "") }},
		{"RO-6 operator changes an evidence annotation already set", byApproval,
			"RO-6: the operator.aicr.run/evidence annotation is set once, only by the operator",
			func(f fx) error {
				name := f.newRollout()
				require.NoError(f.t, operatorClient().annotate(name, evidence, evidenceRef(digestA)))
				return operatorClient().annotate(name, evidence, evidenceRef(digestB))
			}},
		{"RO-6 operator removes an evidence annotation already set", byApproval,
			"RO-6: the operator.aicr.run/evidence annotation is set once, only by the operator",
			func(f fx) error {
				name := f.newRollout()
				require.NoError(f.t, operatorClient().annotate(name, evidence, evidenceRef(digestA)))
				return operatorClient().annotate(name, evidence, "")
			}},
		{"RO-6 editor removes the evidence annotation", byApproval,
			"RO-6: the operator.aicr.run/evidence annotation is set once, only by the operator",
			func(f fx) error {
				name := f.newRollout()
				require.NoError(f.t, operatorClient().annotate(name, evidence, evidenceRef(digestA)))
				return editor().annotate(name, evidence, "")
			}},
		{"RO-6 approver adds another operator.aicr.run/ annotation", byApproval, operatorMeta,
			func(f fx) error { return approver().annotate(f.newRollout(), "operator.aicr.run/plan-digest", digestB) }},
		{"RO-6 editor sets the evidence annotation", byApproval,
			"RO-6: the operator.aicr.run/evidence annotation is set once, only by the operator",
			func(f fx) error {
				return editor().patch(f.newRollout(), map[string]any{"metadata": map[string]any{
					"annotations": map[string]any{evidence: "oci://registry.example.com/aicr/evidence@" + digestA}}})
			}},
	}
}

func planBypasses() []bypass {
	want := "PLAN-8: ConfigMaps with operator.aicr.run/ labels or annotations in aicr-system are written only by " +
		"the operator's ServiceAccount"
	return []bypass{
		{"PLAN-8 non-operator creates a plan ConfigMap", byPlans, want,
			func(fx) error { return createCM(as(cmWriterUser), planConfigMap(cmName())) }},
		{"PLAN-8 non-operator updates a plan ConfigMap", byPlans, want,
			func(f fx) error {
				name := f.operatorPlan()
				body := `{"metadata":{"annotations":{"operator.aicr.run/plan-digest":"` + digestA + `"}}}`
				return patchCM(as(cmWriterUser), name, body)
			}},
		{"PLAN-8 non-operator strips the role label", byPlans, want,
			func(f fx) error {
				body := `{"metadata":{"labels":{"operator.aicr.run/role":null}}}`
				return patchCM(as(cmWriterUser), f.operatorPlan(), body)
			}},
		{"PLAN-8 cluster administrator creates a values ConfigMap", byPlans, want,
			func(fx) error {
				cm := planConfigMap(cmName())
				cm.SetLabels(map[string]string{roleLabel: "values"})
				return createCM(admin(), cm)
			}},
		{"PLAN-8 PLAN-3 non-operator creates a values ConfigMap", byPlans, want,
			func(fx) error { return createCM(as(cmWriterUser), valuesConfigMap()) }},
		{"PLAN-8 PLAN-3 non-operator squats a values name without labels", byPlans, want,
			func(fx) error {
				cm := valuesConfigMap()
				cm.SetLabels(nil)
				return createCM(as(cmWriterUser), cm)
			}},
		{"PLAN-8 PLAN-5 non-operator squats a plan name with its plan-digest annotation", byPlans, want,
			func(fx) error {
				cm := planConfigMap(cmName())
				cm.SetLabels(nil)
				return createCM(as(cmWriterUser), cm)
			}},
		{"CH-4 approver writes a ConfigMap in the operator namespace", byRBAC,
			`User "approver-alice" cannot create resource "configmaps" in API group "" in the namespace "aicr-system"`,
			func(fx) error { return createCM(approver(), planConfigMap(cmName())) }},
	}
}

func TestBypassAttemptsRefused(t *testing.T) {
	t.Parallel()
	needEnv(t)
	var cases []bypass
	cases = append(cases, approvalBypasses()...)
	cases = append(cases, rolloutOwnershipBypasses()...)
	cases = append(cases, planBypasses()...)
	cases = append(cases, operatorRBACBypasses()...)
	require.GreaterOrEqual(t, len(cases), 25, "the suite holds at least 25 distinct bypass attempts")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			assertRefused(t, c, c.try(fx{t}))
		})
	}
}

// assertRefused checks that err is the refusal c expects, from the component c names.
func assertRefused(t *testing.T, c bypass, err error) {
	t.Helper()
	require.Error(t, err, "the API server accepted: %s", c.name)
	assert.Contains(t, err.Error(), c.want)
	if policy, ok := strings.CutPrefix(c.by, "VAP "); ok {
		assert.Contains(t, err.Error(), "ValidatingAdmissionPolicy '"+policy+"'")
	}
}

func withApproval(o *unstructured.Unstructured) {
	o.Object["spec"].(map[string]any)["approval"] = map[string]any{
		"approvedBy": approverUser, "expiresAt": expiresAt, "reason": "restored",
	}
}

// createRollout creates a rollout with a fresh name as c.
func createRollout(c client, mutate func(*unstructured.Unstructured)) error {
	name := "rollout-create-" + strings.ToLower(strings.ReplaceAll(c.user, ":", "-"))
	o := rolloutObject(name, mutate)
	o.SetGenerateName(name + "-")
	o.SetName("")
	_, err := c.dyn.Resource(rolloutGVR).Create(context.Background(), o, metav1.CreateOptions{})
	return err
}

// cmName returns a fresh plan ConfigMap name.
func cmName() string {
	return fmt.Sprintf("aicr-plan-%016x", rolloutSeq.Add(1))
}

func createCM(c client, cm *unstructured.Unstructured) error {
	_, err := c.dyn.Resource(cmGVR).Namespace(cm.GetNamespace()).Create(context.Background(), cm, metav1.CreateOptions{})
	return err
}

func patchCM(c client, name, body string) error {
	_, err := c.dyn.Resource(cmGVR).Namespace(releaseNamespace).Patch(context.Background(), name, typeMerge,
		[]byte(body), metav1.PatchOptions{})
	return err
}

// operatorPlan creates a plan ConfigMap as the operator and returns its name.
func operatorPlan(t *testing.T) string {
	t.Helper()
	cm := planConfigMap(cmName())
	require.NoError(t, createCM(operatorClient(), cm), "the operator writes plan ConfigMaps (PLAN-8)")
	return cm.GetName()
}

// TestADM1ChartServiceAccountsNeverApprove has the chart's own ServiceAccounts try to approve
// one rollout: the identity aicr validate runs as and a validator identity of one of its runs,
// both with cluster-admin, and the Job identity bound to the approver role (fixture) are
// refused with a message naming them, and a real approver then approves the same rollout.
func TestADM1ChartServiceAccountsNeverApprove(t *testing.T) {
	t.Parallel()
	needEnv(t)
	name := newRollout(t)
	for _, c := range []client{runValidatorClient(), jobsClient()} {
		err := c.approve(name, c.user)
		require.Error(t, err, "ADM-1: %s approved a rollout", c.user)
		assert.Contains(t, err.Error(), "ADM-1: "+c.user+" is a ServiceAccount of the aicr-operator chart "+
			"(AICR Jobs or deployment validation) and never changes spec.approval, whatever its grants")
	}
	// Two policies refuse aicr validate's own identity, and the API server reports either.
	err := validatorClient().approve(name, validatorUser)
	require.Error(t, err, "aicr validate's identity approved a rollout")
	assert.True(t, strings.Contains(err.Error(), "ADM-1: "+validatorUser+" is a ServiceAccount of the aicr-operator chart") ||
		strings.Contains(err.Error(), "aicr validate ("+validatorUser+") writes only the objects of its own runs"), err.Error())
	require.NoError(t, approver().approve(name, approverUser), "ADM-1: an approver still approves")
	by, _, _ := unstructured.NestedString(getRollout(t, name).Object, "spec", "approval", "approvedBy")
	assert.Equal(t, approverUser, by)
}
