package rollout_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// BenchmarkRolloutReplace256 measures the largest transition the API admits: 128 target
// releases replacing 128 others (256 steps), every release's values near its share of the
// 1 MiB a plan's values ConfigMap holds, with an instant engine. It reports the operator's
// overhead per step over the first and the last 32 steps, each the mean, which holds the steps
// one pass judges and starts at once and those after a status write alike (a flat cost: no
// work per step that grows with the plan), and the size of the largest object the operator wrote (the rollout,
// the plan and its values ConfigMap), against the API server's 1.5 MiB object limit:
//
//	go test ./test/rollout -run '^$' -bench BenchmarkRolloutReplace256 -benchtime 1x
func BenchmarkRolloutReplace256(b *testing.B) {
	var early, late, largest float64
	for range b.N {
		e, l, size := replace256(b)
		early, late, largest = early+e, late+l, max(largest, size)
	}
	n := float64(b.N)
	b.ReportMetric(early/n, "ms/step-first-32")
	b.ReportMetric(late/n, "ms/step-last-32")
	b.ReportMetric(largest/1024, "KiB-largest-object")
}

// replace256 installs one full plan, then rolls out its replacement, and returns the mean gap
// between engine writes over the first and the last 32 steps in milliseconds and the size of the
// largest object it wrote in bytes.
func replace256(b *testing.B) (early, late, largest float64) {
	h := newHarness(b, true)
	h.opts.RequeueCap = time.Millisecond
	engineWrites := recordEngineWrites(h)
	h.start()
	defer h.stop()
	uid := h.createRuntime(nil)
	active, err := largePlan("active", uid)
	require.NoError(b, err)
	h.setCandidate(h.writePlan(active), metav1.Condition{})
	h.waitOutcome(h.waitRollout(1).Name, aicrv1alpha1.PhaseSucceeded)

	target, err := largePlan("target", uid)
	require.NoError(b, err)
	engineWrites.reset()
	h.setCandidate(h.writePlan(target), metav1.Condition{})
	ro := h.waitRollout(2)
	require.Len(b, ro.Spec.Steps, 2*benchReleases)
	h.approve(ro.Name, h.clock.Now().Add(30*time.Minute))
	ended := h.waitOutcome(ro.Name, aicrv1alpha1.PhaseSucceeded)

	gaps := engineWrites.gaps()
	require.GreaterOrEqual(b, len(gaps), 250, "one engine write per step")
	largest = objectSize(b, ended)
	for _, name := range planConfigMapNames(b, target) {
		cm := &corev1.ConfigMap{}
		require.NoError(b, k8s.Get(context.Background(), client.ObjectKey{Namespace: operatorNamespace, Name: name}, cm))
		largest = max(largest, objectSize(b, cm))
	}
	return meanMillis(gaps[:32]), meanMillis(gaps[len(gaps)-32:]), largest
}

// largePlan is a plan of benchReleases releases named after prefix, each with values of about
// 7 KiB, so the plan's values ConfigMap is close to the 1 MiB a ConfigMap holds.
func largePlan(prefix, runtimeUID string) (*domain.Plan, error) {
	p := &domain.Plan{SchemaVersion: domain.PlanSchemaVersion, RuntimeUID: runtimeUID, Source: domain.SourceResolved,
		AICRVersion: "1.0.0", HasRecipe: true}
	pad := strings.Repeat("x", 7*1024)
	for i := range benchReleases {
		id := fmt.Sprintf("%s-%03d", prefix, i)
		p.Releases = append(p.Releases, domain.Release{
			ID: id, Namespace: "components", Component: id, Kind: ports.KindUpstream,
			Chart: ports.ChartSource{Repository: "oci://registry.example.com/charts", Name: id, Version: "1.0.0",
				ManifestDigest: "sha256:" + zeros},
			Values: map[string]any{"replicas": i, "padding": pad},
		})
		d, err := domain.Digest(p.Releases[i].Values)
		if err != nil {
			return nil, err
		}
		p.Releases[i].ValuesDigest = d
	}
	var err error
	p.Digest, err = domain.DesiredStateDigest(p.Releases)
	return p, err
}

// planConfigMapNames are the plan ConfigMap of p and its values ConfigMap.
func planConfigMapNames(b *testing.B, p *domain.Plan) []string {
	plan, err := configdoc.PlanConfigMapName(p.Digest)
	require.NoError(b, err)
	values, _, err := configdoc.EncodeValues(p)
	require.NoError(b, err)
	return []string{plan, values.Name}
}

// objectSize is the size of obj as the API server stores it (JSON).
func objectSize(b *testing.B, obj client.Object) float64 {
	raw, err := json.Marshal(obj)
	require.NoError(b, err)
	return float64(len(raw))
}
