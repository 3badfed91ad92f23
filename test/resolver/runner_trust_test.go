package resolver_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/jobs"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/jobexec"
	"github.com/NVIDIA/aicr/test/sealtest"
)

// TestRunner_OutputMustBeTheJobsOwn: the runner uses a Job's output only while the Job controls
// it and it carries the Job's labels; an output re-owned to another object (what a Job
// namespace editor could do without the chart's policies) is reported as untrusted, its AICR
// version label ignored (issue "trust chain": Job outputs bound to their Job, RES-8).
func TestRunner_OutputMustBeTheJobsOwn(t *testing.T) {
	ctx := context.Background()
	runner, ref := succeededJob(t, "aicr-recipe-output-trust")
	files, err := runner.Output(ctx, ref)
	require.NoError(t, err)
	data, err := fs.ReadFile(files, ports.JobArtifactFile)
	require.NoError(t, err)
	assert.Equal(t, recipeArtifact, string(data), "AICR 1.1.0's recipe, its version in metadata.version")
	st, err := runner.Status(ctx, ref)
	require.NoError(t, err)
	assert.Equal(t, "1.1.0", st.AICRVersion, "the version is the artifact's; AICR labels its output unknown")

	out := &corev1.ConfigMap{}
	require.NoError(t, k8s.Get(ctx, client.ObjectKey{Namespace: jobNS, Name: jobs.OutputName(ref.Name)}, out))
	patch := client.MergeFrom(out.DeepCopy())
	out.OwnerReferences[0].UID = types.UID("0b7e4a51-3f9a-4c0d-8b2e-1a2b3c4d5e6f")
	require.NoError(t, k8s.Patch(ctx, out, patch))
	_, err = runner.Output(ctx, ref)
	require.ErrorIs(t, err, ports.ErrUntrustedOutput)
	st, err = runner.Status(ctx, ref)
	require.NoError(t, err)
	assert.Equal(t, ports.JobSucceeded, st.State)
	assert.Empty(t, st.AICRVersion, "a version label on an output that is not the Job's counts for nothing")
}

// recipeArtifact is the RecipeResult the simulated AICR 1.1.0 writes for "kind: RecipeResult":
// AICR records its version in the artifact's metadata.version.
const recipeArtifact = "kind: RecipeResult\nmetadata:\n  version: 1.1.0\n"

// TestRunner_KeepNeverTakesOverAName: Keep seals its copy with the operator's key; a sealed copy
// of the same content is success, an operator copy whose content changed or whose seal was not
// made by the key is replaced, and a
// ConfigMap the operator did not write is reported as foreign and left alone (RES-7, PLAN-8).
func TestRunner_KeepNeverTakesOverAName(t *testing.T) {
	ctx := context.Background()
	runner, ref := succeededJob(t, "aicr-recipe-keep-trust")
	name := "aicr-recipe-keep-trust"
	key := client.ObjectKey{Namespace: operatorNS, Name: name}
	kept := ports.KeptResult{Name: name, Role: aicrv1alpha1.RoleRecipe, RuntimeUID: "uid-keep"}
	t.Cleanup(func() {
		_ = k8s.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: operatorNS}})
	})

	require.NoError(t, runner.Keep(ctx, ref, kept))
	copied := &corev1.ConfigMap{}
	require.NoError(t, k8s.Get(ctx, key, copied))
	requireSealed(t, runner, kept, copied, "Keep seals its copy")
	files, err := runner.Kept(ctx, kept)
	require.NoError(t, err)
	data, err := fs.ReadFile(files, ports.JobArtifactFile)
	require.NoError(t, err)
	assert.Equal(t, recipeArtifact, string(data), "Kept returns what Keep sealed")
	require.NoError(t, runner.Keep(ctx, ref, kept), "the same sealed copy is success")

	// An operator copy whose recorded digest no longer matches is written again.
	patch := client.MergeFrom(copied.DeepCopy())
	copied.Annotations[aicrv1alpha1.AnnotationContentDigest] = "sha256:" + zeros
	require.NoError(t, k8s.Patch(ctx, copied, patch))
	_, err = runner.Kept(ctx, kept)
	require.ErrorIs(t, err, ports.ErrUntrustedOutput, "a copy whose content does not match its digest is not returned")
	require.NoError(t, runner.Keep(ctx, ref, kept))
	require.NoError(t, k8s.Get(ctx, key, copied))
	requireSealed(t, runner, kept, copied, "replaced by a sealed copy")

	// A copy put back with the operator's labels, immutable, its content digest recomputed and
	// even the seal of the copy it replaced (what an identity can do while the plans policy's
	// binding is missing) is not the operator's: its seal is bound to the old copy's UID, and no
	// other identity holds the key to make one. Never used, and replaced by the next Keep.
	forged := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: operatorNS,
		Labels: copied.Labels, Annotations: map[string]string{}}, Immutable: copied.Immutable,
		Data: map[string]string{jobs.OutputKey: "kind: RecipeResult\ncomponentRefs: [{name: backdoor}]\n"}}
	for k, v := range copied.Annotations {
		forged.Annotations[k] = v
	}
	forged.Annotations[aicrv1alpha1.AnnotationContentDigest] = unkeyedDigest(forged.Data)
	require.NoError(t, k8s.Delete(ctx, copied))
	require.NoError(t, k8s.Create(ctx, forged))
	_, err = runner.Kept(ctx, kept)
	require.ErrorIs(t, err, ports.ErrUntrustedOutput, "a copy sealed without the operator's key is not returned")
	require.ErrorIs(t, err, ports.ErrBadSeal)
	require.NoError(t, runner.Keep(ctx, ref, kept))
	require.NoError(t, k8s.Get(ctx, key, copied))
	assert.NotEqual(t, forged.UID, copied.UID, "the forged copy is replaced")
	requireSealed(t, runner, kept, copied, "replaced by a sealed copy")

	// Something unlabelled in the way is foreign: never deleted, never used.
	require.NoError(t, k8s.Delete(ctx, copied))
	planted := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: operatorNS},
		Data: map[string]string{jobs.OutputKey: "kind: RecipeResult\ncomponentRefs: [{name: backdoor}]\n"}}
	require.NoError(t, k8s.Create(ctx, planted))
	require.ErrorIs(t, runner.Keep(ctx, ref, kept), ports.ErrForeignObject)
	_, err = runner.Kept(ctx, kept)
	require.ErrorIs(t, err, ports.ErrUntrustedOutput, "never used")
	require.NoError(t, k8s.Get(ctx, key, copied))
	assert.Equal(t, planted.UID, copied.UID, "left alone")
}

// requireSealed checks a kept copy as the runner does: immutable, its content digest and seal
// recorded, and returned by Kept, which verifies the operator's labels for the role and runtime,
// the digest against the content and the seal with the operator's key.
func requireSealed(t *testing.T, runner *jobs.Runner, kept ports.KeptResult, cm *corev1.ConfigMap, msg string) {
	t.Helper()
	require.NotNil(t, cm.Immutable, msg)
	assert.True(t, *cm.Immutable, msg)
	assert.NotEmpty(t, cm.Annotations[aicrv1alpha1.AnnotationContentDigest], msg)
	assert.NotEmpty(t, cm.Annotations[aicrv1alpha1.AnnotationSeal], msg)
	_, err := runner.Kept(context.Background(), kept)
	require.NoError(t, err, msg)
}

const zeros = "0000000000000000000000000000000000000000000000000000000000000000"

// succeededJob runs a recipe Job named name to success and deletes it when the test ends.
func succeededJob(t *testing.T, name string) (*jobs.Runner, ports.JobRef) {
	t.Helper()
	ctx := context.Background()
	runner, err := jobs.New(jobs.Config{Sealer: sealtest.New(), Namespace: jobNS, OperatorNamespace: operatorNS, Image: image, CopierImage: jobexec.CopierImage}, k8s, k8s)
	require.NoError(t, err)
	exec, err := jobexec.New(restConfig, scheme, jobNS, image, func(*batchv1.Job, *corev1.ConfigMap) jobexec.Result {
		return jobexec.Result{Version: "1.1.0", Data: map[string]string{jobs.OutputKey: "kind: RecipeResult\n"}}
	})
	require.NoError(t, err)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = exec.Run(runCtx); close(done) }()
	ref, err := runner.Start(ctx, ports.JobSpec{Name: name, Kind: ports.JobRecipe, Image: image,
		Args: []string{"--log-json", "recipe", "-o", runner.OutputRef(name)}, Owner: ports.ReleaseOwner{RuntimeUID: "uid-keep"}})
	require.NoError(t, err)
	t.Cleanup(func() { cancel(); <-done })
	t.Cleanup(func() { deleteJob(t, runner, ref) })
	require.Eventually(t, func() bool {
		st, err := runner.Status(ctx, ref)
		return err == nil && st.State == ports.JobSucceeded
	}, wait, tick)
	return runner, ref
}

// TestRunner_ImageRefsOnlyFromTheJobsOwnPod: the digest a bundle Job's AICR published to
// --image-refs is read from the terminated image-refs container of a Pod the Job controls,
// after its aicr init container exited 0; once no such Pod remains (here re-owned) it is
// untrusted and the stage runs again.
func TestRunner_ImageRefsOnlyFromTheJobsOwnPod(t *testing.T) {
	ctx := context.Background()
	name, digest := "aicr-bundle-image-refs-trust", "sha256:"+zeros+"\n"
	runner, err := jobs.New(jobs.Config{Sealer: sealtest.New(), Namespace: jobNS, OperatorNamespace: operatorNS, Image: image, CopierImage: jobexec.CopierImage}, k8s, k8s)
	require.NoError(t, err)
	exec, err := jobexec.New(restConfig, scheme, jobNS, image, func(*batchv1.Job, *corev1.ConfigMap) jobexec.Result {
		return jobexec.Result{ImageRefs: digest}
	})
	require.NoError(t, err)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = exec.Run(runCtx); close(done) }()
	ref, err := runner.Start(ctx, ports.JobSpec{Name: name, Kind: ports.JobBundle, Image: image,
		Args:  []string{"--log-json", "bundle", "-o", "oci://registry.test/aicr/bundles/cluster:" + name, "--image-refs", ports.JobImageRefsPath},
		Owner: ports.ReleaseOwner{RuntimeUID: "uid-refs"}})
	require.NoError(t, err)
	t.Cleanup(func() { cancel(); <-done })
	t.Cleanup(func() { deleteJob(t, runner, ref) })
	require.Eventually(t, func() bool {
		st, serr := runner.Status(ctx, ref)
		return serr == nil && st.State == ports.JobSucceeded
	}, wait, tick)

	files, err := runner.Output(ctx, ref)
	require.NoError(t, err)
	data, err := fs.ReadFile(files, ports.JobImageRefsFile)
	require.NoError(t, err)
	assert.Equal(t, digest, string(data))

	pods := &corev1.PodList{}
	require.NoError(t, k8s.List(ctx, pods, client.InNamespace(jobNS), client.MatchingLabels{jobs.JobNameLabel: name}))
	require.Len(t, pods.Items, 1)
	pod := &pods.Items[0]
	patch := client.MergeFrom(pod.DeepCopy())
	pod.OwnerReferences[0].UID = types.UID("0b7e4a51-3f9a-4c0d-8b2e-1a2b3c4d5e6f")
	require.NoError(t, k8s.Patch(ctx, pod, patch))
	_, err = runner.Output(ctx, ref)
	require.ErrorIs(t, err, ports.ErrUntrustedOutput)
}

// unkeyedDigest recomputes a kept copy's content digest as anyone can: SHA-256 of the JSON of its
// data.
func unkeyedDigest(data map[string]string) string {
	raw, err := json.Marshal(struct {
		Data map[string]string `json:"data,omitempty"`
	}{data})
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(raw)
	return "sha256:" + hex.EncodeToString(sum[:])
}
