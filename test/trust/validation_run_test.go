package trust_test

import (
	"context"
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// validateUser is the identity aicr validate runs as.
const validateUser = "system:serviceaccount:" + validationNS + ":" + validateSA

// run is the run ID of the attacks' objects.
const run = "0a1b2c3d"

// validationRunner is the runner of deployment validation as the operator builds it: the
// pinned AICR image in the validation namespace as the validate identity, with AICR's check
// images from the chart's registry at the pinned version.
func validationRunner(c client.Client, r client.Reader) (*jobs.Runner, error) {
	return jobs.New(jobs.Config{Sealer: operatorSeals(), Namespace: validationNS, OperatorNamespace: operatorNS, Image: aicrImage, ServiceAccount: validateSA,
		Env: map[string]string{jobs.ValidatorRegistryEnv: validators, jobs.ValidatorTagEnv: "v" + aicrVersion}}, c, r)
}

// aicrValidate is a client acting as aicr validate's Pod.
func aicrValidate() client.Client {
	return as(validateUser, "system:serviceaccounts", "system:serviceaccounts:"+validationNS)
}

// TestValidationRun_AICRsOwnObjectsAdmitted: a validate Job started as the operator starts it
// runs, with every policy of the chart enforced, the whole of aicr validate as the simulated
// AICR plays it with the Job's own identity: the agent's RBAC and privileged Job, the snapshot
// the agent writes, the recipe ConfigMap, the validator's cluster-admin binding, one Job per
// deployment check of AICR's catalog, the clean-up, and the report the operator reads.
func TestValidationRun_AICRsOwnObjectsAdmitted(t *testing.T) {
	w := baseline(t)
	runner, err := validationRunner(operator(), operator())
	require.NoError(t, err)
	const name = "aicr-validation-run"
	t.Cleanup(func() { deleteStageJob(t, runner, validationNS, name) })
	before := len(w.validation.ValidateRunObjects())
	stage := app.Stage{Kind: ports.JobValidate, Name: name, Inputs: map[string][]byte{"recipe.yaml": []byte("kind: RecipeResult\n")},
		Args: []string{"--log-json", "validate", "-r", ports.JobInputsDir + "/recipe.yaml", "--phase", "deployment",
			"--namespace", validationNS, "--image", aicrImage, "--fail-on-error=false", "-o", runner.OutputRef(name)}}
	files := pollStage(t, runner, stage, func(run app.StageRun) bool { return run.Files != nil || run.Stall != nil }).Files
	require.NotNil(t, files, "the run succeeds: %v", violationsOf(w.validation, name))
	_, err = fs.ReadFile(files, ports.JobArtifactFile)
	require.NoError(t, err, "the CTRF report")
	assert.Empty(t, violationsOf(w.validation, name), "every object of the run was admitted")

	created := strings.Join(w.validation.ValidateRunObjects()[before:], "\n")
	checks, err := jobexec.PhaseChecks(jobexec.CatalogPath(), "deployment")
	require.NoError(t, err)
	require.NotEmpty(t, checks)
	for _, want := range []string{"*v1.ServiceAccount aicr-validate-", "*v1.ClusterRole aicr-node-reader-", "*v1.Job aicr-validate-",
		"*v1.ConfigMap aicr-recipe-", "*v1.ServiceAccount aicr-validator-", "*v1.ClusterRoleBinding aicr-validator-"} {
		assert.Contains(t, created, want)
	}
	for _, c := range checks {
		assert.Contains(t, created, "*v1.Job aicr-"+c.Name+"-", "one Job per deployment check")
	}
	bindings := &rbacv1.ClusterRoleBindingList{}
	require.NoError(t, k8s.List(context.Background(), bindings))
	for _, b := range bindings.Items {
		assert.False(t, strings.HasPrefix(b.Name, "aicr-validator-") || strings.HasPrefix(b.Name, "aicr-node-reader-"),
			"the run cleaned up %s", b.Name)
	}
}

// TestValidationRun_AICRsShapesAdmitted: the positive control of the attacks below: each of
// AICR's own objects, created as aicr validate, passes admission.
func TestValidationRun_AICRsShapesAdmitted(t *testing.T) {
	baseline(t)
	for _, o := range aicrShapes(t) {
		require.NoError(t, aicrValidate().Create(context.Background(), o, client.DryRunAll), "%T %s", o, o.GetName())
	}
}

// aicrShapes are the objects of one run as AICR creates them.
func aicrShapes(t *testing.T) []client.Object {
	t.Helper()
	objs := append(jobexec.AgentRBAC(validationNS, run), jobexec.ValidatorRBAC(validationNS, run)...)
	return append(objs, jobexec.AgentJob(validationNS, run, aicrImage), checkJob(t, checkImage),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "aicr-recipe-" + run, Namespace: validationNS}})
}

// checkJob is the Job of AICR's first deployment check with image.
func checkJob(t *testing.T, image string) *batchv1.Job {
	t.Helper()
	checks, err := jobexec.PhaseChecks(jobexec.CatalogPath(), "deployment")
	require.NoError(t, err)
	require.NotEmpty(t, checks)
	return jobexec.CheckJob(validationNS, run, "aicr-"+checks[0].Name+"-"+run, image, checks[0], 330)
}

// TestAttack_AICRValidateBeyondItsRun: aicr validate holds cluster-admin; each write outside
// the objects of its own runs, or in another shape than AICR's, is refused.
func TestAttack_AICRValidateBeyondItsRun(t *testing.T) {
	baseline(t)
	privileged := checkJob(t, checkImage)
	privileged.Spec.Template.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true)}
	hostNet := checkJob(t, checkImage)
	hostNet.Spec.Template.Spec.HostNetwork = true
	asDefault := checkJob(t, checkImage)
	asDefault.Spec.Template.Spec.ServiceAccountName = "default"
	asOperator := checkJob(t, checkImage)
	asOperator.Spec.Template.Spec.ServiceAccountName = validateSA
	agentElsewhere := jobexec.AgentJob(validationNS, run, aicrImage)
	agentElsewhere.Spec.Template.Spec.Volumes[0].HostPath.Path = "/"
	agentMounts := jobexec.AgentJob(validationNS, run, aicrImage)
	agentMounts.Spec.Template.Spec.Containers[0].VolumeMounts[0].ReadOnly = false
	agentAsValidator := jobexec.AgentJob(validationNS, run, aicrImage)
	agentAsValidator.Spec.Template.Spec.ServiceAccountName = "aicr-validator-" + run
	ownShape := job("attack-own-shape", aicrImage, validateSA)
	ownShape.Namespace = validationNS
	jobWorkloads := "RES-8: aicr validate starts in " + validationNS + " only its snapshot agent"
	validationRun := "aicr validate (" + validateUser + ") writes only the objects of its own runs"
	for _, tc := range []struct {
		name string
		obj  client.Object
		// want is the refusal, or refusals separated by | where two policies refuse and the
		// API server reports either.
		want string
	}{
		{"a check of another image", checkJob(t, "registry.example.com/evil:latest"), jobWorkloads},
		{"a check of another version", checkJob(t, validators+"/aicr-validators/deployment:v9.9.9"), jobWorkloads},
		{"a check of the validator image by another registry", checkJob(t, "ghcr.io/nvidia/aicr-validators/deployment:v"+aicrVersion), jobWorkloads},
		{"a privileged check", privileged, jobWorkloads},
		{"a check in the host's network", hostNet, jobWorkloads},
		{"a check as another ServiceAccount", asDefault, jobWorkloads},
		{"a check as the validate identity", asOperator, jobWorkloads},
		{"a Job of the validate identity's own shape", ownShape, jobWorkloads},
		{"an agent of another image", jobexec.AgentJob(validationNS, run, "registry.example.com/evil:latest"), jobWorkloads},
		{"an agent mounting the node's root", agentElsewhere, jobWorkloads},
		{"an agent writing the node's /run/systemd", agentMounts, jobWorkloads},
		{"an agent as the validator", agentAsValidator, jobWorkloads},
		{"a Pod of its own", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "attack-pod", Namespace: validationNS},
			Spec: jobexec.AgentJob(validationNS, run, aicrImage).Spec.Template.Spec},
			validationRun + "|RES-8: Pods in the AICR Job namespaces come only from the Job controller"},
		{"cluster-admin for another ServiceAccount", adminBinding("aicr-validator-"+run, "default"),
			"aicr validate binds cluster-admin only to its own run's validator ServiceAccount"},
		{"cluster-admin under another name", adminBinding("attack-admin", "aicr-validator-"+run), validationRun},
		{"an agent ClusterRole reading Secrets", &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "aicr-node-reader-" + run},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}}},
			"aicr validate's agent ClusterRole only reads, and never Secrets"},
		{"an agent Role writing Secrets", &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "aicr-validate-" + run, Namespace: validationNS},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"create"}}}},
			"aicr validate's agent Role reads Pods and writes ConfigMaps in its namespace, nothing else"},
		{"a Secret", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "attack", Namespace: validationNS}}, validationRun},
		{"a ConfigMap in another namespace", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "aicr-recipe-" + run, Namespace: "default"}}, validationRun},
		{"a ConfigMap of another name", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "attack", Namespace: validationNS}},
			validationRun + "|RES-8: ConfigMaps in the AICR Job namespaces are created only by the operator"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			refusedByAny(t, aicrValidate().Create(context.Background(), tc.obj, client.DryRunAll), strings.Split(tc.want, "|"))
		})
	}
}

// TestAttack_RunShapesByOtherIdentities: AICR's own shapes are admitted only from aicr validate:
// the operator and an administrator of the validation namespace cannot start them, and a
// run's agent writes only its own run's snapshot.
func TestAttack_RunShapesByOtherIdentities(t *testing.T) {
	baseline(t)
	ctx := context.Background()
	refused(t, operator().Create(ctx, checkJob(t, checkImage), client.DryRunAll), "RES-8: Jobs in "+validationNS+" run only the pinned images")
	refused(t, operator().Create(ctx, jobexec.AgentJob(validationNS, run, aicrImage), client.DryRunAll),
		"RES-8: Jobs in "+validationNS+" run only the pinned images")
	for _, o := range jobexec.AgentRBAC(validationNS, run) {
		require.NoError(t, k8s.Create(ctx, o), "the run's agent RBAC, as AICR creates it")
		t.Cleanup(func() { require.NoError(t, k8s.Delete(context.Background(), o)) })
	}
	agent := as("system:serviceaccount:"+validationNS+":aicr-validate-"+run, "system:serviceaccounts", "system:serviceaccounts:"+validationNS)
	own := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "aicr-snapshot-" + run, Namespace: validationNS}}
	require.NoError(t, agent.Create(ctx, own, client.DryRunAll), "the agent writes its own run's snapshot")
	other := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "aicr-snapshot-ffffffff", Namespace: validationNS}}
	refused(t, agent.Create(ctx, other, client.DryRunAll), "RES-8: ConfigMaps in the AICR Job namespaces are created only by the operator")
}

// adminBinding binds cluster-admin to the ServiceAccount subject of the validation namespace.
func adminBinding(name, subject string) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: subject, Namespace: validationNS}}}
}

// refusedByAny asserts that err is admission's refusal carrying one of wants.
func refusedByAny(t *testing.T, err error, wants []string) {
	t.Helper()
	require.Error(t, err, "the attack must be refused")
	require.Truef(t, apierrors.IsForbidden(err) || apierrors.IsInvalid(err), "refused by the API server: %v", err)
	for _, want := range wants {
		if strings.Contains(err.Error(), want) {
			return
		}
	}
	t.Errorf("refusal %q carries none of %q", err, wants)
}
