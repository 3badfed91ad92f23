package faults_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/aicroci"
	"github.com/NVIDIA/aicr/test/network"
)

// hangTimeout is the registry client's timeout in these tests (the operator's is
// requestTimeout, 2 minutes, with 30 s for a response's headers).
const hangTimeout = time.Second

// networkRegistry is the operator's registry adapter over net's runtime registry and upstream
// repositories, each call bounded by hangTimeout; bundles come from the in-process bundle
// registry the bundle Job pushes to.
func networkRegistry(t *testing.T, net *network.Server) ports.Registry {
	t.Helper()
	reg, err := oci.New(oci.Options{Registry: "oci://" + net.Host() + "/aicr",
		HTTPClient: &http.Client{Transport: net.Client().Transport, Timeout: hangTimeout}})
	require.NoError(t, err)
	return aicroci.RealBundles{Registry: reg, Bundles: aicroci.ServeBundleRegistry(t, aicroci.PushPassword).Registry}
}

// startNetwork serves the runtime registry and the fixture's upstream repositories until the
// test ends.
func startNetwork(t *testing.T) *network.Server {
	t.Helper()
	net, err := network.Start(t.TempDir(), fixtureDir)
	require.NoError(t, err)
	t.Cleanup(net.Close)
	return net
}

// readRuntime reads the ClusterRuntime (nil: none yet).
func readRuntime() *aicrv1alpha1.ClusterRuntime {
	cr := &aicrv1alpha1.ClusterRuntime{}
	if k8s.Get(context.Background(), client.ObjectKey{Name: aicrv1alpha1.ClusterRuntimeName}, cr) != nil {
		return nil
	}
	return cr
}

// waitResolvedMessage waits until the Resolved condition is Resolving with a message that
// contains every want, and returns it.
func waitResolvedMessage(t *testing.T, want ...string) string {
	t.Helper()
	var msg string
	require.Eventually(t, func() bool {
		cr := readRuntime()
		if cr == nil {
			return false
		}
		c := meta.FindStatusCondition(cr.Status.Conditions, aicrv1alpha1.ConditionResolved)
		if c == nil || c.Reason != domain.ReasonResolving {
			return false
		}
		msg = c.Message
		for _, w := range want {
			if !strings.Contains(msg, w) {
				return false
			}
		}
		return true
	}, waitFor, tick, "the Resolved condition says %q (last: %q)", want, msg)
	return msg
}

// waitRolledOut waits until the runtime resolved a plan and its install rollout succeeded.
func waitRolledOut(t *testing.T) {
	t.Helper()
	require.Eventually(t, func() bool {
		cr := readRuntime()
		if cr == nil || cr.Status.ActivePlanDigest == "" {
			return false
		}
		var list aicrv1alpha1.RuntimeRolloutList
		return k8s.List(context.Background(), &list) == nil && len(list.Items) == 1 &&
			list.Items[0].Labels[aicrv1alpha1.LabelOutcome] == string(aicrv1alpha1.PhaseSucceeded)
	}, waitFor, tick, "the resolved plan rolled out")
}

// chartManifest and chartArchive pick the runtime registry's chart manifest pushes and the
// upstream archive fetches out of the server's request log.
var (
	chartManifest = regexp.MustCompile(`^PUT /v2/aicr/charts/[^ ]+/manifests/`)
	chartArchive  = regexp.MustCompile(`^GET /upstream/.+\.tgz$`)
)

// assertNothingRedone asserts that every chart published before the hang began (its manifest
// push answered) was pushed once and fetched from its upstream once in the whole run, and that
// at most one chart, the one the hang cut off, was fetched twice.
func assertNothingRedone(t *testing.T, log []string) {
	t.Helper()
	counts, before := map[string]int{}, map[string]bool{}
	hung := false
	for _, x := range log {
		if strings.HasPrefix(x, network.HeldMark) {
			hung = true
			continue
		}
		if chartManifest.MatchString(x) || chartArchive.MatchString(x) {
			counts[x]++
			before[x] = before[x] || !hung
		}
	}
	require.True(t, hung, "the hang held a request")
	var pushedBefore, twice []string
	for x, n := range counts {
		if chartManifest.MatchString(x) {
			assert.Equal(t, 1, n, "%s: a chart is pushed once", x)
			if before[x] {
				pushedBefore = append(pushedBefore, x)
			}
		} else if n > 1 {
			twice = append(twice, x)
		}
	}
	assert.NotEmpty(t, pushedBefore, "charts were published before the hang")
	assert.LessOrEqual(t, len(twice), 1, "only the chart the hang cut off is fetched again: %v", twice)
	t.Logf("charts published before the hang: %d; upstream archives fetched twice: %v", len(pushedBefore), twice)
}

// TestRegistryHangsDuringResolution: the runtime registry accepts every request and answers
// none, from the first chart published on. Each registry call ends at the client's timeout,
// the reconcile returns and retries, and the Resolved condition names the registry host and
// the request it waits on and the chart it publishes; once the registry answers again the
// resolution finishes without publishing or fetching again a chart it had published, and the
// plan rolls out.
func TestRegistryHangsDuringResolution(t *testing.T) {
	net := startNetwork(t)
	w := newWorldOn(t, net)
	w.start("operator-1", processOptions{})
	net.HangAfter("/v2/", chartManifest)
	w.createRuntime()

	msg := waitResolvedMessage(t, "waiting for "+net.Host()+" to answer ", " /v2/aicr/", "publish chart ")
	t.Logf("while the registry hangs: %s", msg)
	require.Eventually(t, func() bool { return net.Held() >= 3 }, waitFor, tick,
		"the resolver keeps retrying, each call ended by the client's timeout")

	answered := time.Now()
	net.Answer()
	waitRolledOut(t)
	t.Logf("recovery: resolved and rolled out %s after the registry answered again (client timeout %s)",
		time.Since(answered).Round(time.Millisecond), hangTimeout)
	assertNothingRedone(t, net.Requests())
}

// TestUpstreamHangsDuringResolution: an upstream chart repository accepts every request and
// answers none once the first chart was published. The Resolved condition names the upstream
// host and the request (its index or archive) and the chart; once it answers again the
// resolution finishes without fetching again a chart it had published.
func TestUpstreamHangsDuringResolution(t *testing.T) {
	net := startNetwork(t)
	w := newWorldOn(t, net)
	w.start("operator-1", processOptions{})
	net.HangAfter("/upstream/", chartManifest)
	w.createRuntime()

	msg := waitResolvedMessage(t, "waiting for "+net.Host()+" to answer GET /upstream/", "publish chart ")
	t.Logf("while the upstream hangs: %s", msg)
	require.Eventually(t, func() bool { return net.Held() >= 3 }, waitFor, tick, "the resolver keeps retrying")

	answered := time.Now()
	net.Answer()
	waitRolledOut(t)
	t.Logf("recovery: resolved and rolled out %s after the upstream answered again", time.Since(answered).Round(time.Millisecond))
	assertNothingRedone(t, net.Requests())
}
