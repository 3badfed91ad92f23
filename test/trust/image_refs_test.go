package trust_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/chartrender"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// chartOperatorImage is the operator image the chart passes the operator (--operator-image).
func chartOperatorImage(t *testing.T) string {
	t.Helper()
	args, err := chartrender.OperatorArgs(rendered, operatorNS)
	require.NoError(t, err)
	image := chartrender.FlagValue(args, "--operator-image")
	require.NotEmpty(t, image)
	return image
}

// bundleJob is the bundle Job the operator's runner builds with the chart's operator image
// as its copier: AICR as the init container, the image-refs container handing its digest back.
func bundleJob(t *testing.T, name string) *batchv1.Job {
	t.Helper()
	ctx := context.Background()
	c := fake.NewClientBuilder().WithScheme(scheme).Build()
	runner, err := jobs.New(jobs.Config{Sealer: operatorSeals(), Namespace: jobsNS, OperatorNamespace: operatorNS, Image: aicrImage,
		CopierImage: chartOperatorImage(t)}, c, c)
	require.NoError(t, err)
	_, err = runner.Start(ctx, ports.JobSpec{Name: name, Kind: ports.JobBundle, Image: aicrImage,
		Args: []string{"--log-json", "bundle", "-o", "oci://registry.example.com/aicr/bundles/cluster:" + name, "--image-refs", ports.JobImageRefsPath}})
	require.NoError(t, err)
	j := &batchv1.Job{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: jobsNS, Name: name}, j))
	return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: j.Name, Namespace: j.Namespace, Labels: j.Labels}, Spec: j.Spec}
}

// TestOperatorRunsTheImageRefsCopier: the operator's bundle Job, with the operator image as its
// image-refs container, is admitted in the Job namespace, and so is its Pod from the Job
// controller.
func TestOperatorRunsTheImageRefsCopier(t *testing.T) {
	baseline(t).noEngineWrite(t)
	ctx := context.Background()
	j := bundleJob(t, "legit-bundle")
	require.NoError(t, operator().Create(ctx, j, client.DryRunAll))
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "legit-bundle-pod", Namespace: jobsNS,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: j.Name,
			UID: "6f1b1f8e-0000-4000-8000-000000000001", Controller: ptr.To(true)}}},
		Spec: j.Spec.Template.Spec}
	require.NoError(t, as(jobexec.JobControllerUser, "system:serviceaccounts", "system:serviceaccounts:kube-system").Create(ctx, pod, client.DryRunAll))
}

// TestAttack_OperatorRunsItsOwnImageAsAnythingButTheCopier: the operator's identity may put its
// own image in a Job of the Job namespace only as the image-refs container running
// copy-image-refs. As the AICR container, as an init container, with a command or other
// arguments (running the operator itself as aicr-jobs), or in the discovery namespace, it is
// refused.
func TestAttack_OperatorRunsItsOwnImageAsAnythingButTheCopier(t *testing.T) {
	baseline(t).noEngineWrite(t)
	operatorImage := chartOperatorImage(t)
	for name, mutate := range map[string]func(*batchv1.Job){
		"as the aicr container": func(j *batchv1.Job) {
			j.Spec.Template.Spec.InitContainers[0].Image = operatorImage
		},
		"with the operator's own arguments": func(j *batchv1.Job) {
			j.Spec.Template.Spec.Containers[0].Args = []string{"--operator-namespace=" + operatorNS, "--leader-elect=false"}
		},
		"with a command": func(j *batchv1.Job) {
			j.Spec.Template.Spec.Containers[0].Command = []string{"/aicr-operator"}
		},
		"under another container name": func(j *batchv1.Job) {
			j.Spec.Template.Spec.Containers[0].Name = "copier"
		},
		"in the discovery namespace": func(j *batchv1.Job) {
			j.Namespace = discoveryNS
			j.Spec.Template.Spec.ServiceAccountName = jobs.AgentServiceAccount
		},
	} {
		t.Run(name, func(t *testing.T) {
			j := bundleJob(t, "attack-copier")
			mutate(j)
			refused(t, operator().Create(context.Background(), j, client.DryRunAll), "run only the pinned images")
		})
	}
}
