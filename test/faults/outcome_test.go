package faults_test

import (
	"context"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/argocd"
	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/mocks"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/aicroci"
)

// registry plays the runtime registry: every chart mirrors or wraps to a pinned digest, so the
// plan's releases are pinned as the Argo CD adapter needs, and the bundle Job pushes the bundle
// to an in-process registry the operator pulls it from by digest.
func registry(t *testing.T) ports.Registry {
	reg := mocks.NewMockRegistry(gomock.NewController(t))
	reg.EXPECT().MirrorChart(gomock.Any(), gomock.Any()).Return(ports.PinnedChart{
		ManifestDigest: ports.Digest("sha256:" + strings.Repeat("a", 64)), ArchiveDigest: ports.Digest("sha256:" + strings.Repeat("b", 64))}, nil).AnyTimes()
	reg.EXPECT().PushWrapper(gomock.Any(), gomock.Any()).Return(ports.PinnedChart{ManifestDigest: ports.Digest("sha256:" + strings.Repeat("c", 64))}, nil).AnyTimes()
	return aicroci.RealBundles{Registry: reg, Bundles: aicroci.ServeBundleRegistry(t, aicroci.PushPassword).Registry}
}

// waitInstalled waits until the runtime resolved the fixture's plan and its initial install
// rollout succeeded, and returns the rollout's name.
func (w *world) waitInstalled(digest string) string {
	w.t.Helper()
	ctx := context.Background()
	var name string
	require.Eventually(w.t, func() bool {
		cr := &aicrv1alpha1.ClusterRuntime{}
		if k8s.Get(ctx, client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, cr) != nil {
			return false
		}
		c := meta.FindStatusCondition(cr.Status.Conditions, aicrv1alpha1.ConditionResolved)
		if c == nil || c.Reason != domain.ReasonResolved || cr.Status.CandidatePlanDigest != digest ||
			cr.Status.ActivePlanDigest != digest {
			return false
		}
		var list aicrv1alpha1.RuntimeRolloutList
		if k8s.List(ctx, &list) != nil || len(list.Items) != 1 {
			return false
		}
		name = list.Items[0].Name
		return list.Items[0].Labels[aicrv1alpha1.LabelOutcome] == string(aicrv1alpha1.PhaseSucceeded)
	}, waitFor, tick, "the plan %s resolved and rolled out", digest)
	return name
}

// assertInstalled asserts what an install must leave, exactly once each: the plan ConfigMap of
// the digest (the plan recorded, nothing lost), one rollout, one Application per release of the
// plan recording it, and one kept copy of each stage's result.
func assertInstalled(t *testing.T, digest, uid string) {
	t.Helper()
	ctx := context.Background()
	name, err := configdoc.PlanConfigMapName(digest)
	require.NoError(t, err)
	plan := &corev1.ConfigMap{}
	require.NoError(t, k8s.Get(ctx, client.ObjectKey{Namespace: operatorNS, Name: name}, plan), "the plan is recorded")
	stored, err := configdoc.DecodePlan([]byte(plan.Data[configdoc.PlanKey]))
	require.NoError(t, err)
	assert.Equal(t, digest, stored.Digest)
	assert.Equal(t, uid, stored.RuntimeUID)
	assert.Len(t, byRole(t, aicrv1alpha1.RolePlan), 1, "one plan ConfigMap")
	var apps argov1.ApplicationList
	require.NoError(t, k8s.List(ctx, &apps, client.InNamespace(argocd.DefaultNamespace)))
	got := make([]string, 0, len(apps.Items))
	for _, a := range apps.Items {
		got = append(got, a.Name)
	}
	wantApps := make([]string, 0, len(stored.Releases))
	for _, r := range stored.Releases {
		wantApps = append(wantApps, argocd.ApplicationName(ports.ReleaseRef{ID: r.ID, Namespace: r.Namespace}))
	}
	sort.Strings(got)
	sort.Strings(wantApps)
	assert.Equal(t, wantApps, got, "one Application per release, no other")
}

// byRole lists the operator's ConfigMaps of role in the operator namespace.
func byRole(t *testing.T, role string) []corev1.ConfigMap {
	t.Helper()
	var list corev1.ConfigMapList
	require.NoError(t, k8s.List(context.Background(), &list, client.InNamespace(operatorNS), client.MatchingLabels{aicrv1alpha1.LabelRole: role}))
	return list.Items
}

// hashes are the run-specific parts of object names: hex digests and the runtime's UID.
var hashes = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{8,}`)

// created returns the objects writes created, one line per object with the run-specific parts
// of names replaced, sorted: those whose create was answered 201 and those whose create got
// no answer (the process was stopped while it was in flight: the API server may have made
// it). twice lists the objects whose create was answered 201 more than once.
func created(writes []write) (shapes []string, twice []string) {
	seen, made := map[string]bool{}, map[string]int{}
	for _, w := range writes {
		if w.verb != "create" || w.resource == "leases" || (w.code != 201 && w.code != 0) || (w.code == 0 && w.faulted) {
			continue
		}
		if w.code == 201 {
			if made[w.key()]++; made[w.key()] == 2 {
				twice = append(twice, w.key())
			}
		}
		if !seen[w.key()] {
			seen[w.key()] = true
			shapes = append(shapes, hashes.ReplaceAllString(w.key(), "#"))
		}
	}
	sort.Strings(shapes)
	return shapes, twice
}

// assertCreatedOnce asserts that no object was created twice and that the run created the same
// objects as the run without a fault (the same kinds under the same names, modulo the runtime's
// UID): nothing written twice under a new name, nothing missing.
func assertCreatedOnce(t *testing.T, writes []write, baseline []string) {
	t.Helper()
	shapes, twice := created(writes)
	assert.Empty(t, twice, "objects created twice")
	assert.Equal(t, baseline, shapes, "the objects the run without a fault creates, each once:\n%s", strings.Join(shapes, "\n"))
}
