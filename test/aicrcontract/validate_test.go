package aicrcontract_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/test/chartrender"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// The installation the validation cases render the chart with.
const (
	validationNS = "aicr-validation"
	runID        = "0a1b2c3d"
	cliVersion   = "1.0.0"
	pinnedAICR   = "ghcr.io/nvidia/aicr:v1.0.0@sha256:0000000000000000000000000000000000000000000000000000000000000000"
)

// renderWithValidation renders the chart with its defaults and validation on.
func renderWithValidation(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	objs, err := chartrender.Render("aicr-system", chartrender.WithValues(map[string]any{"validation.enabled": true}))
	require.NoError(t, err)
	return objs
}

// operatorFlag is the value of the operator's flag name in the chart's rendering.
func operatorFlag(t *testing.T, objs []*unstructured.Unstructured, name string) string {
	t.Helper()
	args, err := chartrender.OperatorArgs(objs, "aicr-system")
	require.NoError(t, err)
	return chartrender.FlagValue(args, name)
}

// deploymentChecks are the deployment-phase checks of AICR's validator catalog.
func deploymentChecks(t *testing.T) []jobexec.Check {
	t.Helper()
	checks, err := jobexec.PhaseChecks(jobexec.CatalogPath(), "deployment")
	require.NoError(t, err)
	require.NotEmpty(t, checks)
	return checks
}

// objectsOf are objs of type T.
func objectsOf[T client.Object](objs []client.Object) []T {
	var out []T
	for _, o := range objs {
		if typed, ok := o.(T); ok {
			out = append(out, typed)
		}
	}
	return out
}

// 5.8: the agent's RBAC as AICR creates it: a ServiceAccount, Role and RoleBinding of one name
// in the agent's namespace, the Role writing ConfigMaps and reading Pods, the ClusterRole
// reading Nodes, Pods, Services and ClusterPolicies, and no Secrets without the Helm option
// the operator never passes.
func TestFact5_8_AgentRBAC(t *testing.T) {
	t.Parallel()
	objs := jobexec.AgentRBAC(validationNS, runID)
	sa, roles := objectsOf[*corev1.ServiceAccount](objs), objectsOf[*rbacv1.Role](objs)
	bindings := objectsOf[*rbacv1.RoleBinding](objs)
	require.Len(t, sa, 1)
	require.Len(t, roles, 1)
	require.Len(t, bindings, 1)
	for _, o := range []client.Object{roles[0], bindings[0]} {
		assert.Equal(t, sa[0].Name, o.GetName(), "named after the ServiceAccount")
		assert.Equal(t, validationNS, o.GetNamespace())
	}
	assert.ElementsMatch(t, []string{"configmaps:create", "configmaps:get", "configmaps:update", "configmaps:patch", "pods:get", "pods:list"},
		rights(roles[0].Rules))
	cluster := objectsOf[*rbacv1.ClusterRole](objs)
	require.Len(t, cluster, 1)
	granted := rights(cluster[0].Rules)
	for _, want := range []string{"nodes:get", "nodes:list", "pods:get", "pods:list", "clusterpolicies:get", "clusterpolicies:list",
		"services:get", "services:list"} {
		assert.Contains(t, granted, want)
	}
	for _, r := range granted {
		assert.NotContains(t, r, "secrets", "no Secrets without HelmAllNamespaces")
	}
}

// rights lists rules as resource:verb.
func rights(rules []rbacv1.PolicyRule) []string {
	var out []string
	for _, r := range rules {
		for _, res := range r.Resources {
			for _, v := range r.Verbs {
				out = append(out, res+":"+v)
			}
		}
	}
	return out
}

// 5.9: v1's run-scoped agent RBAC: <prefix>-<run-id> in the namespace and
// aicr-node-reader-<run-id> at the cluster scope, each labelled aicr.run/run-id; read access
// to the Slinky and MariaDB resources; the agent writes its snapshot to a ConfigMap of the
// agent's own namespace.
func TestFact5_9_RunScopedAgentRBAC(t *testing.T) {
	t.Parallel()
	for _, o := range jobexec.AgentRBAC(validationNS, runID) {
		assert.Equal(t, runID, o.GetLabels()[jobexec.RunIDLabel], "%T %s", o, o.GetName())
		if o.GetNamespace() == "" {
			assert.Equal(t, "aicr-node-reader-"+runID, o.GetName())
		} else {
			assert.Equal(t, "aicr-validate-"+runID, o.GetName())
		}
	}
	cluster := objectsOf[*rbacv1.ClusterRole](jobexec.AgentRBAC(validationNS, runID))
	require.Len(t, cluster, 1)
	groups := map[string]bool{}
	for _, r := range cluster[0].Rules {
		for _, g := range r.APIGroups {
			groups[g] = true
		}
		for _, v := range r.Verbs {
			assert.Contains(t, []string{"get", "list", "watch"}, v, "read access only")
		}
	}
	assert.True(t, groups["slinky.slurm.net"] && groups["k8s.mariadb.com"], "Slinky and MariaDB read access")
	agent := jobexec.AgentJob(validationNS, runID, pinnedAICR)
	args := agent.Spec.Template.Spec.Containers[0].Args
	require.Contains(t, args, "-o")
	assert.True(t, strings.HasPrefix(args[slices.Index(args, "-o")+1], "cm://"+validationNS+"/"), "the cm:// namespace is --namespace")
}

// 6.1: the orchestrator is the AICR image itself: the operator runs validate from the pinned
// AICR image (its --image too) in aicr-validation, and the chart pins no validator image.
func TestFact6_1_ValidateRunsTheAICRImage(t *testing.T) {
	t.Parallel()
	objs := renderWithValidation(t)
	assert.Equal(t, validationNS, operatorFlag(t, objs, "--validation-namespace"), "AICR's default --namespace")
	aicrImage := operatorFlag(t, objs, "--aicr-image")
	args := domain.ValidationArgs(validationNS, aicrImage, "cm://"+validationNS+"/run-output")
	assert.Equal(t, aicrImage, args[slices.Index(args, "--image")+1])
	raw, err := json.Marshal(objs)
	require.NoError(t, err)
	assert.NotRegexp(t, `aicr-validator[:@]`, string(raw), "no separate validator image")
}

// 6.2: without -s validate deploys its own privileged snapshot agent Job, aicr-validate-<run>,
// in --namespace: the operator never passes -s, and the simulator's agent has the shape of
// AICR's privileged agent.
func TestFact6_2_ValidateDeploysItsOwnAgent(t *testing.T) {
	t.Parallel()
	args := domain.ValidationArgs(validationNS, pinnedAICR, "cm://"+validationNS+"/run-output")
	for _, flag := range []string{"-s", "--snapshot", "--no-cluster"} {
		assert.NotContains(t, args, flag)
	}
	agent := jobexec.AgentJob(validationNS, runID, pinnedAICR)
	assert.Equal(t, "aicr-validate-"+runID, agent.Name)
	assert.Equal(t, validationNS, agent.Namespace)
	assert.Empty(t, jobexec.AgentShapeGaps(agent.Spec.Template.Spec), "the privileged agent's shape")
	assert.Equal(t, pinnedAICR, agent.Spec.Template.Spec.Containers[0].Image, "--image")
}

// 6.3: a failed readiness pre-flight is exit 2 whatever --fail-on-error says: the operator
// reads it as AICR's invalid request, a terminal failure of the run, not one to retry.
func TestFact6_3_PreflightFailureIsExit2(t *testing.T) {
	t.Parallel()
	line := `{"msg":"command failed","error":"[INVALID_REQUEST] readiness pre-flight failed: kernel 5.4 below 5.15","exitCode":2}`
	exit := domain.ClassifyAICRExit(2, line)
	assert.False(t, exit.Transient)
	assert.False(t, exit.Killed)
	require.NotNil(t, exit.Stall)
	assert.Equal(t, domain.StallAICRInvalidRequest, exit.Stall.Reason())
}

// 6.4: each check runs as its own Job aicr-<check>-<8 hex> with AICR's labels, no retries, the
// catalog timeout plus 3m30s as deadline, container validator with the check's arguments,
// requests equal to limits of one CPU and 1Gi, its termination message from the default path,
// preferring nodes without a GPU.
func TestFact6_4_OneJobPerCheck(t *testing.T) {
	t.Parallel()
	name := regexp.MustCompile(`^aicr-[a-z0-9-]+-[0-9a-f]{8}$`)
	for _, c := range deploymentChecks(t) {
		j := playedCheck(t, c)
		assert.Regexp(t, name, j.Name)
		for k, v := range map[string]string{"app.kubernetes.io/name": "aicr", "app.kubernetes.io/component": "validation",
			"app.kubernetes.io/managed-by": "aicr", "aicr.run/job-type": "validation", jobexec.RunIDLabel: runID,
			"aicr.run/validator": c.Name, "aicr.run/phase": "deployment"} {
			assert.Equal(t, v, j.Labels[k], "%s label %s", c.Name, k)
		}
		assert.Equal(t, int32(0), *j.Spec.BackoffLimit)
		assert.Equal(t, catalogSeconds(t, c.Timeout)+210, *j.Spec.ActiveDeadlineSeconds, c.Name)
		pod := j.Spec.Template.Spec
		require.Len(t, pod.Containers, 1)
		ctr := pod.Containers[0]
		assert.Equal(t, "validator", ctr.Name)
		assert.Equal(t, c.Args, ctr.Args)
		one := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi")}
		assert.Equal(t, one, ctr.Resources.Requests)
		assert.Equal(t, one, ctr.Resources.Limits)
		assert.Equal(t, corev1.TerminationMessagePathDefault, ctr.TerminationMessagePath)
		prefer := pod.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution
		require.Len(t, prefer, 1)
		assert.Equal(t, corev1.NodeSelectorOpDoesNotExist, prefer[0].Preference.MatchExpressions[0].Operator)
		assert.Equal(t, "nvidia.com/gpu.present", prefer[0].Preference.MatchExpressions[0].Key)
	}
}

// playedCheck is the Job the simulator runs for check c.
func playedCheck(t *testing.T, c jobexec.Check) *batchv1.Job {
	t.Helper()
	image := jobexec.CheckImage(c.Image, "", "", cliVersion)
	return jobexec.CheckJob(validationNS, runID, "aicr-"+c.Name+"-"+runID, image, c, catalogSeconds(t, c.Timeout)+210)
}

// catalogSeconds is a catalog timeout in seconds.
func catalogSeconds(t *testing.T, timeout string) int64 {
	t.Helper()
	var minutes int64
	_, err := fmt.Sscanf(timeout, "%dm", &minutes)
	require.NoError(t, err, "catalog timeout %q", timeout)
	return minutes * 60
}

// 6.5: check Pods mount the run's snapshot and recipe ConfigMaps at /data/snapshot and
// /data/recipe, with their paths, the check's name and phase, the run ID and the namespace in
// the environment.
func TestFact6_5_CheckInputs(t *testing.T) {
	t.Parallel()
	for _, c := range deploymentChecks(t) {
		pod := playedCheck(t, c).Spec.Template.Spec
		volumes := map[string]string{}
		for _, v := range pod.Volumes {
			require.NotNil(t, v.ConfigMap, v.Name)
			volumes[v.Name] = v.ConfigMap.Name
		}
		mounts := map[string]string{}
		for _, m := range pod.Containers[0].VolumeMounts {
			mounts[volumes[m.Name]] = m.MountPath
		}
		assert.Equal(t, map[string]string{"aicr-snapshot-" + runID: "/data/snapshot", "aicr-recipe-" + runID: "/data/recipe"}, mounts)
		env := map[string]string{}
		for _, e := range pod.Containers[0].Env {
			env[e.Name] = e.Value
			if e.ValueFrom != nil {
				env[e.Name] = e.ValueFrom.FieldRef.FieldPath
			}
		}
		assert.Equal(t, map[string]string{"AICR_SNAPSHOT_PATH": "/data/snapshot/snapshot.yaml", "AICR_RECIPE_PATH": "/data/recipe/recipe.yaml",
			"AICR_VALIDATOR_NAME": c.Name, "AICR_VALIDATOR_PHASE": "deployment", "AICR_RUN_ID": runID, "AICR_NAMESPACE": "metadata.namespace"}, env)
	}
}

// 6.6: check images come from AICR's catalog by tag: :latest becomes the CLI version, explicit
// tags stay, the registry setting replaces ghcr.io/nvidia and the tag setting the tag; the
// chart's admitted check images are what AICR runs with the operator's settings.
func TestFact6_6_CheckImages(t *testing.T) {
	t.Parallel()
	for _, c := range deploymentChecks(t) {
		assert.True(t, strings.HasPrefix(c.Image, "ghcr.io/nvidia/aicr-validators/"), c.Image)
		assert.NotContains(t, c.Image, "@", "by tag, not digest")
	}
	assert.Equal(t, "ghcr.io/nvidia/aicr-validators/deployment:v1.0.0", jobexec.CheckImage("ghcr.io/nvidia/aicr-validators/deployment:latest", "", "", "1.0.0"))
	assert.Equal(t, "ghcr.io/nvidia/aicr-validators/deployment:v1.2.3", jobexec.CheckImage("ghcr.io/nvidia/aicr-validators/deployment:v1.2.3", "", "", "1.0.0"))
	assert.Equal(t, "localhost:5001/aicr-validators/deployment:v9", jobexec.CheckImage("ghcr.io/nvidia/aicr-validators/deployment:latest", "localhost:5001", "v9", "1.0.0"))

	objs := renderWithValidation(t)
	registry := operatorFlag(t, objs, "--validator-image-registry")
	version := operatorFlag(t, objs, "--aicr-version")
	raw, err := json.Marshal(objs)
	require.NoError(t, err)
	for _, c := range deploymentChecks(t) {
		image := jobexec.CheckImage(c.Image, registry, "v"+version, version)
		assert.Contains(t, string(raw), image, "the chart admits the image AICR runs for %s", c.Name)
	}
	assert.Equal(t, "AICR_VALIDATOR_IMAGE_REGISTRY", jobs.ValidatorRegistryEnv, "the registry setting the operator passes")
	assert.Equal(t, "AICR_VALIDATOR_IMAGE_TAG", jobs.ValidatorTagEnv, "the tag setting the operator passes")
}

// 6.7: each run binds its validator ServiceAccount to cluster-admin with
// aicr-validator-<run-id> labelled app.kubernetes.io/name=aicr-validator, and the caller holds
// cluster-admin: the chart binds it to the identity validate runs as.
func TestFact6_7_ValidatorRBAC(t *testing.T) {
	t.Parallel()
	objs := jobexec.ValidatorRBAC(validationNS, runID)
	bindings := objectsOf[*rbacv1.ClusterRoleBinding](objs)
	require.Len(t, bindings, 1)
	b := bindings[0]
	assert.Equal(t, "aicr-validator-"+runID, b.Name)
	assert.Equal(t, "aicr-validator", b.Labels["app.kubernetes.io/name"])
	assert.Equal(t, "cluster-admin", b.RoleRef.Name)
	require.Len(t, b.Subjects, 1)
	assert.Equal(t, validationNS, b.Subjects[0].Namespace)
	assert.Len(t, objectsOf[*corev1.ServiceAccount](objs), 1)

	rendered := renderWithValidation(t)
	identity := operatorFlag(t, rendered, "--validation-service-account")
	var caller bool
	for _, o := range rendered {
		if o.GetKind() != "ClusterRoleBinding" {
			continue
		}
		role, _, _ := unstructured.NestedString(o.Object, "roleRef", "name")
		subjects, _, _ := unstructured.NestedSlice(o.Object, "subjects")
		for _, s := range subjects {
			m, _ := s.(map[string]any)
			caller = caller || role == "cluster-admin" && m["name"] == identity && m["namespace"] == validationNS
		}
	}
	assert.True(t, caller, "the chart binds cluster-admin to %s", identity)
}

// 6.8: what validate creates in --namespace and at the cluster scope: the agent Job with its
// ServiceAccount, Role and RoleBinding, the input ConfigMaps the checks mount, one Job per
// check, the validator ServiceAccount; the agent ClusterRole and binding and the cluster-admin
// binding.
func TestFact6_8_ValidatesObjects(t *testing.T) {
	t.Parallel()
	objs := append(jobexec.AgentRBAC(validationNS, runID), jobexec.ValidatorRBAC(validationNS, runID)...)
	kinds := map[string]int{}
	for _, o := range objs {
		scope := "namespaced"
		if o.GetNamespace() == "" {
			scope = "cluster"
		}
		kinds[fmt.Sprintf("%s %T", scope, o)]++
	}
	assert.Equal(t, map[string]int{"namespaced *v1.ServiceAccount": 2, "namespaced *v1.Role": 1, "namespaced *v1.RoleBinding": 1,
		"cluster *v1.ClusterRole": 1, "cluster *v1.ClusterRoleBinding": 2}, kinds)
	var mounted []string
	for _, v := range playedCheck(t, deploymentChecks(t)[0]).Spec.Template.Spec.Volumes {
		mounted = append(mounted, v.ConfigMap.Name)
	}
	assert.ElementsMatch(t, []string{"aicr-snapshot-" + runID, "aicr-recipe-" + runID}, mounted)
	agent := jobexec.AgentJob(validationNS, runID, pinnedAICR)
	assert.Equal(t, "aicr-validate-"+runID, agent.Spec.Template.Spec.ServiceAccountName, "the agent runs as its run-scoped identity")
}

// 6.9: a check container's exit code is its test's status: 0 passed, 1 failed, 2 skipped,
// anything else other; the simulator ends each check as its report says.
func TestFact6_9_CheckExitCodes(t *testing.T) {
	t.Parallel()
	for code, status := range map[int32]string{0: "passed", 1: "failed", 2: "skipped", 3: "other", 137: "other"} {
		assert.Equal(t, status, jobexec.CheckStatus(code), "exit %d", code)
	}
	for _, status := range []string{"passed", "failed", "skipped", "other", "pending"} {
		want := status
		if status == "pending" {
			want = "other"
		}
		assert.Equal(t, want, jobexec.CheckStatus(jobexec.CheckExitCode(status)), status)
	}
}

// 6.10: with --fail-on-error=false validate exits 0 after writing its report whatever the
// checks say; the operator always passes it, so the report decides, and an exit 8 (the
// failed-checks exit of --fail-on-error=true) is a failed run, never a success.
func TestFact6_10_ValidateExit(t *testing.T) {
	t.Parallel()
	args := domain.ValidationArgs(validationNS, pinnedAICR, "cm://"+validationNS+"/run-output")
	assert.Contains(t, args, "--fail-on-error=false")
	exit := domain.ClassifyAICRExit(8, `{"msg":"command failed","error":"[INTERNAL] validation failed: 1 check failed","exitCode":8}`)
	require.NotNil(t, exit.Stall)
	assert.Equal(t, domain.StallAICRInternal, exit.Stall.Reason())
}
