package cli_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/NVIDIA/aicr/adapters/cli"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

var (
	fakeNow      = time.Date(2029, 6, 1, 12, 0, 0, 0, time.UTC)
	fakeDeadline = metav1.NewTime(time.Date(2029, 6, 2, 12, 0, 0, 0, time.UTC))
)

// fakeRun runs kubectl aicr against fake clients holding ro, as user.
func fakeRun(t *testing.T, ro *aicrv1alpha1.RuntimeRollout, user string, args ...string) (string, string, int, *dynamicfake.FakeDynamicClient) {
	t.Helper()
	return fakeRunWith(t, ro, nil, user, args...)
}

// fakeRunWith runs kubectl aicr against fake clients holding ro and the core objects objs
// (ConfigMaps), as user.
func fakeRunWith(t *testing.T, ro *aicrv1alpha1.RuntimeRollout, objs []runtime.Object, user string,
	args ...string) (string, string, int, *dynamicfake.FakeDynamicClient) {
	t.Helper()
	return fakeRunConfigured(t, []runtime.Object{ro}, objs, user, func(*cli.Options) {}, args...)
}

// fakeRunConfigured runs kubectl aicr, with the options configure sets, against fake clients
// holding the operator's objects aicr (rollouts, the ClusterRuntime) and the core objects objs,
// as user.
func fakeRunConfigured(t *testing.T, aicr, objs []runtime.Object, user string, configure func(*cli.Options),
	args ...string) (string, string, int, *dynamicfake.FakeDynamicClient) {
	t.Helper()
	scheme := runtime.NewScheme()
	require.NoError(t, aicrv1alpha1.AddToScheme(scheme))
	var dynObjs []runtime.Object
	for _, o := range aicr {
		gvks, _, err := scheme.ObjectKinds(o)
		require.NoError(t, err)
		obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		require.NoError(t, err)
		u := &unstructured.Unstructured{Object: obj}
		u.SetGroupVersionKind(gvks[0])
		dynObjs = append(dynObjs, u)
	}
	dyn := dynamicfake.NewSimpleDynamicClient(scheme, dynObjs...)
	kube := kubefake.NewClientset(objs...)
	kube.PrependReactor("create", "selfsubjectreviews", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, &authenticationv1.SelfSubjectReview{Status: authenticationv1.SelfSubjectReviewStatus{
			UserInfo: authenticationv1.UserInfo{Username: user}}}, nil
	})
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	o := cli.NewOptions(streams)
	o.Now = func() time.Time { return fakeNow }
	o.Clients = func() (cli.Clients, error) { return cli.Clients{Dynamic: dyn, Kube: kube, Host: "fake"}, nil }
	configure(o)
	code := cli.Run(context.Background(), o, args)
	return out.String(), errOut.String(), code, dyn
}

func pendingRollout() *aicrv1alpha1.RuntimeRollout {
	return &aicrv1alpha1.RuntimeRollout{
		ObjectMeta: metav1.ObjectMeta{Name: "rollout-3f9a1c0d2b7e4a51-1", ResourceVersion: "7"},
		Spec: aicrv1alpha1.RuntimeRolloutSpec{ToPlanDigest: "sha256:bb", Deadline: fakeDeadline, ApprovalRequired: true,
			Steps: []aicrv1alpha1.Step{{Release: "gpu-operator", Operation: aicrv1alpha1.OperationUpgrade}}},
	}
}

func TestApprove_PatchesOnlySpecApprovalAsTheReportedUser(t *testing.T) {
	t.Parallel()
	out, errOut, code, dyn := fakeRun(t, pendingRollout(), "alice",
		"approve", "rollout-3f9a1c0d2b7e4a51-1", "--expires", "90m", "--reason", "window")

	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "rollout rollout-3f9a1c0d2b7e4a51-1 approved by alice until 2029-06-01T13:30:00Z\n", out)
	var patch []byte
	for _, a := range dyn.Actions() {
		if p, ok := a.(clienttesting.PatchAction); ok {
			patch = p.GetPatch()
		}
	}
	assert.JSONEq(t, `{"metadata":{"resourceVersion":"7"},"spec":{"approval":{`+
		`"approvedBy":"alice","expiresAt":"2029-06-01T13:30:00Z","reason":"window"}}}`, string(patch))
}

func TestAcknowledge_RefusesARolloutThatIsNotWaiting(t *testing.T) {
	t.Parallel()
	ro := pendingRollout()
	ro.Status.Phase = aicrv1alpha1.PhaseProgressing
	out, errOut, code, dyn := fakeRun(t, ro, "alice", "acknowledge", ro.Name)

	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Equal(t, "error: rollout rollout-3f9a1c0d2b7e4a51-1 is not waiting for an acknowledgement (phase Progressing)\n", errOut)
	for _, a := range dyn.Actions() {
		assert.NotEqual(t, "patch", a.GetVerb(), "a refusal changes nothing")
	}
}
