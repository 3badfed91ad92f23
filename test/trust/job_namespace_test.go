package trust_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// TestAttack_JobsAdminRunsAJob: an administrator of the Job namespace runs a Job of its own
// image there, so its Pods could write AICR outputs. Only the operator creates Jobs there.
func TestAttack_JobsAdminRunsAJob(t *testing.T) {
	baseline(t).noEngineWrite(t)
	err := as(jobsAdminUser).Create(context.Background(), job("attack-own-image", "registry.example.com/evil:latest", "aicr-jobs"))
	refused(t, err, "RES-8: Jobs in the AICR Job namespaces are created only by the operator")
}

// TestAttack_JobsAdminCreatesACronJob: the same through a CronJob, whose Jobs the CronJob
// controller would create.
func TestAttack_JobsAdminCreatesACronJob(t *testing.T) {
	baseline(t).noEngineWrite(t)
	j := job("attack-cron", aicrImage, "aicr-jobs")
	cron := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "attack-cron", Namespace: jobsNS},
		Spec: batchv1.CronJobSpec{Schedule: "* * * * *", JobTemplate: batchv1.JobTemplateSpec{Spec: j.Spec}}}
	refused(t, as(jobsAdminUser).Create(context.Background(), cron), "RES-8: no CronJobs")
}

// TestAttack_OperatorRunsAnUnpinnedValidator: the operator's own identity, which may create
// Jobs in the validation namespace where aicr-operator-validate holds cluster-admin, runs
// another image there. Its Job rights are limited to the pinned AICR image, which runs aicr
// validate, and AICR's check images are not the operator's to run either.
func TestAttack_OperatorRunsAnUnpinnedValidator(t *testing.T) {
	baseline(t).noEngineWrite(t)
	for _, image := range []string{"registry.example.com/evil:latest", checkImage} {
		j := job("attack-unpinned", image, validateSA)
		j.Namespace = validationNS
		refused(t, operator().Create(context.Background(), j), "RES-8: Jobs in "+validationNS+" run only the pinned images "+aicrImage)
	}
}

// TestAttack_OperatorRunsTheValidatorAsAnotherIdentity: the pinned AICR image under a
// ServiceAccount the validation namespace does not expect.
func TestAttack_OperatorRunsTheValidatorAsAnotherIdentity(t *testing.T) {
	baseline(t).noEngineWrite(t)
	j := job("attack-identity", aicrImage, "default")
	j.Namespace = validationNS
	refused(t, operator().Create(context.Background(), j), "as "+validateSA)
}

// TestAttack_OperatorRunsAJobInTheDiscoveryNamespace: in the privileged discovery namespace the
// operator runs only the snapshot agent: the pinned AICR image as aicr-snapshot-agent. Another
// identity or another image there is refused.
func TestAttack_OperatorRunsAJobInTheDiscoveryNamespace(t *testing.T) {
	baseline(t).noEngineWrite(t)
	for _, j := range []*batchv1.Job{
		job("attack-discovery", aicrImage, "aicr-jobs"),
		job("attack-discovery", "registry.example.com/evil:latest", jobs.AgentServiceAccount),
	} {
		j.Namespace = discoveryNS
		refused(t, operator().Create(context.Background(), j),
			"RES-8: Jobs in "+discoveryNS+" run only the pinned images "+aicrImage+" as "+jobs.AgentServiceAccount)
	}
}

// TestAttack_JobsAdminCreatesAPodAsTheJobIdentity: a Pod of the pinned image running as
// aicr-jobs, whose token's pod-name claim the admin chooses. Pods come only from the Job
// controller.
func TestAttack_JobsAdminCreatesAPodAsTheJobIdentity(t *testing.T) {
	baseline(t).noEngineWrite(t)
	spec := job("x", aicrImage, "aicr-jobs").Spec.Template.Spec
	spec.Containers[0].SecurityContext = restricted()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "attack-a-abcde", Namespace: jobsNS}, Spec: spec}
	refused(t, as(jobsAdminUser).Create(context.Background(), pod), "RES-8: Pods in the AICR Job namespaces come only from the Job controller")
}

// TestAttack_JobsAdminWritesAnOutput: the admin writes a running Job's output ConfigMap.
func TestAttack_JobsAdminWritesAnOutput(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	out := w.heldJobOutput(t, "attack-write")
	out.Data = map[string]string{jobs.OutputKey: forgedRecipe}
	refused(t, as(jobsAdminUser).Update(context.Background(), out), "RES-8: the output ConfigMap attack-write-output is written only by a Pod of its own Job")
}

// TestAttack_JobsAdminDeletesAnOutput: deleting it to create another in its place.
func TestAttack_JobsAdminDeletesAnOutput(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	out := w.heldJobOutput(t, "attack-delete")
	refused(t, as(jobsAdminUser).Delete(context.Background(), out), "RES-8: ConfigMaps in the AICR Job namespaces are deleted only by the operator")
}

// TestAttack_JobsAdminPlantsAnOutputFirst: creating a Job's output before the operator does,
// owned by the Job, so the operator would take it as the one it created.
func TestAttack_JobsAdminPlantsAnOutputFirst(t *testing.T) {
	baseline(t).noEngineWrite(t)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "aicr-recipe-0000000000000000-output", Namespace: jobsNS},
		Data: map[string]string{jobs.OutputKey: forgedRecipe}}
	refused(t, as(jobsAdminUser).Create(context.Background(), cm), "RES-8: ConfigMaps in the AICR Job namespaces are created only by the operator")
}

// TestAttack_PodOfAnotherJobWritesAnOutput: an AICR Pod (aicr-jobs, every AICR Job's identity)
// writes the output of another Job. Its token's pod-name claim binds it to its own Job, whose
// output it may write.
func TestAttack_PodOfAnotherJobWritesAnOutput(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	ctx := context.Background()
	mine, other := w.heldJobOutput(t, "attack-mine"), w.heldJobOutput(t, "attack-other")
	pod := w.jobPod(t, "attack-mine")
	other.Data = map[string]string{jobs.OutputKey: forgedRecipe}
	refused(t, podOf(pod.Name).Update(ctx, other), "is written only by a Pod of its own Job, not by "+jobsUser+" from Pod "+pod.Name)
	mine.Data = map[string]string{jobs.OutputKey: "its own result"}
	require.NoError(t, podOf(pod.Name).Update(ctx, mine), "a Pod writes its own Job's output")
}

// TestAttack_JobsAdminReparentsAJobPod: the operator reads a Job's image refs from the Pod the
// Job controls. An administrator re-parents another Job's Pod, so that Pod's result would read
// as this Job's. Only the Job controller and the garbage collector change a Pod's owner.
func TestAttack_JobsAdminReparentsAJobPod(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	ctx := context.Background()
	w.heldJobOutput(t, "attack-replayed")
	w.heldJobOutput(t, "attack-target")
	pod := w.jobPod(t, "attack-replayed")
	target := &batchv1.Job{}
	require.NoError(t, k8s.Get(ctx, client.ObjectKey{Namespace: jobsNS, Name: "attack-target"}, target))
	pod.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(target, batchv1.SchemeGroupVersion.WithKind("Job"))}
	refused(t, as(jobsAdminUser).Update(ctx, pod), "RES-8: only the Job controller and the garbage collector change the owner of a Pod")
}

// TestAttack_JobsAdminMintsAJobToken: a token for aicr-jobs, bound to a running AICR Pod, would
// carry that Pod's claim. Only kubelets mint tokens for the Jobs' identities.
func TestAttack_JobsAdminMintsAJobToken(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	w.heldJobOutput(t, "attack-token")
	pod := w.jobPod(t, "attack-token")
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "aicr-jobs", Namespace: jobsNS}}
	req := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID},
	}}
	refused(t, as(jobsAdminUser).SubResource("token").Create(context.Background(), sa, req), "RES-8: tokens of aicr-jobs are minted only by a kubelet")
}

// TestAttack_JobsAdminExecsIntoAJobPod: exec into a running AICR Pod uses its token.
func TestAttack_JobsAdminExecsIntoAJobPod(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	w.heldJobOutput(t, "attack-exec")
	pod := w.jobPod(t, "attack-exec")
	cs, err := kubernetes.NewForConfig(controlPlane.Impersonate(jobsAdminUser))
	require.NoError(t, err)
	err = cs.CoreV1().RESTClient().Post().Namespace(jobsNS).Resource("pods").Name(pod.Name).SubResource("exec").
		Param("container", "aicr").Param("command", "cat").Param("command", "/var/run/secrets/kubernetes.io/serviceaccount/token").
		Param("stdout", "true").Do(context.Background()).Error()
	refused(t, err, "RES-8: nobody execs into")
}

// TestAttack_JobsAdminAddsAnEphemeralContainer: a debug container in a running AICR Pod
// shares its token.
func TestAttack_JobsAdminAddsAnEphemeralContainer(t *testing.T) {
	w := baseline(t)
	w.noEngineWrite(t)
	w.heldJobOutput(t, "attack-debug")
	pod := w.jobPod(t, "attack-debug")
	pod.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
		Name: "debug", Image: "registry.example.com/evil:latest", SecurityContext: restricted()}}}
	refused(t, as(jobsAdminUser).SubResource("ephemeralcontainers").Update(context.Background(), pod), "RES-8: no ephemeral containers")
}

// operator is a client acting as the operator's ServiceAccount.
func operator() client.Client {
	return as(operatorUser, "system:serviceaccounts", "system:serviceaccounts:"+operatorNS)
}

// heldJobOutput starts, as the operator does, a Job the simulated AICR holds running, and
// returns its output ConfigMap; the Job and what it owns go when the test ends.
func (w *world) heldJobOutput(t *testing.T, name string) *corev1.ConfigMap {
	t.Helper()
	ctx := context.Background()
	runner, err := jobs.New(jobs.Config{Sealer: operatorSeals(), Namespace: jobsNS, OperatorNamespace: operatorNS, Image: aicrImage, CopierImage: jobexec.CopierImage}, operator(), operator())
	require.NoError(t, err)
	_, err = runner.Start(ctx, ports.JobSpec{Name: name, Kind: ports.JobRecipe, Image: aicrImage,
		Args:      []string{"--log-json", "recipe", "-o", runner.OutputRef(name)},
		Owner:     ports.ReleaseOwner{RuntimeUID: string(liveRuntime(t).UID)},
		Placement: shared.JobPlacement(jobexec.FixtureRuntimeSpec().Placement.System)})
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, runner.Delete(ctx, ports.JobRef{Name: name}))
		require.Eventually(t, func() bool {
			return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKey{Namespace: jobsNS, Name: name}, &batchv1.Job{}))
		}, waitFor, tick, "held job %s deleted", name)
	})
	out := &corev1.ConfigMap{}
	require.NoError(t, k8s.Get(ctx, client.ObjectKey{Namespace: jobsNS, Name: jobs.OutputName(name)}, out))
	return out
}

// jobPod creates the Job's Pod as the Job controller does.
func (w *world) jobPod(t *testing.T, jobName string) *corev1.Pod {
	t.Helper()
	ctx := context.Background()
	j := &batchv1.Job{}
	require.NoError(t, k8s.Get(ctx, client.ObjectKey{Namespace: jobsNS, Name: jobName}, j))
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: jobName + "-", Namespace: jobsNS,
			Labels:          map[string]string{jobs.JobNameLabel: jobName},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(j, batchv1.SchemeGroupVersion.WithKind("Job"))}},
		Spec: j.Spec.Template.Spec,
	}
	require.NoError(t, as(jobexec.JobControllerUser, "system:serviceaccounts", "system:serviceaccounts:kube-system").Create(ctx, pod),
		"the Job controller creates the Job's Pods")
	return pod
}

// restricted is a container security context the restricted Pod Security level admits, so
// what refuses an attack is the chart's policy, not Pod Security.
func restricted() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr.To(false), RunAsNonRoot: ptr.To(true),
		Capabilities:   &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}

// legacyToken is a Secret the token controller would fill with a token of serviceAccount
// that never expires.
func legacyToken(name, namespace, serviceAccount string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace,
			Annotations: map[string]string{corev1.ServiceAccountNameKey: serviceAccount}},
		Type: corev1.SecretTypeServiceAccountToken,
	}
}

// TestAttack_JobsAdminCreatesALegacyJobToken: an administrator of the Job namespace, who may
// read its Secrets, asks the token controller for a non-expiring aicr-jobs token.
func TestAttack_JobsAdminCreatesALegacyJobToken(t *testing.T) {
	baseline(t).noEngineWrite(t)
	refused(t, as(jobsAdminUser).Create(context.Background(), legacyToken("attack-legacy", jobsNS, "aicr-jobs")),
		"RES-8: no legacy token Secret for aicr-jobs")
}

// TestAttack_OperatorCreatesALegacyValidatorToken: the operator's own identity, which creates
// and reads Secrets in the validation namespace, asks for a non-expiring token of the
// cluster-admin validate identity or of a validate run's agent or validator.
func TestAttack_OperatorCreatesALegacyValidatorToken(t *testing.T) {
	baseline(t).noEngineWrite(t)
	for _, sa := range []string{validateSA, "aicr-validator-0a1b2c3d", "aicr-validate-0a1b2c3d"} {
		refused(t, operator().Create(context.Background(), legacyToken("attack-legacy", validationNS, sa)),
			"RES-8: no legacy token Secret for "+sa)
	}
}

// TestJobsAdminCreatesATokenSecretOfAnotherIdentity: the rule names the Job identities only;
// a token Secret for another ServiceAccount of the namespace is the administrator's own.
func TestJobsAdminCreatesATokenSecretOfAnotherIdentity(t *testing.T) {
	baseline(t).noEngineWrite(t)
	ctx := context.Background()
	secret := legacyToken("own-legacy", jobsNS, "default")
	require.NoError(t, as(jobsAdminUser).Create(ctx, secret, client.DryRunAll))
}
