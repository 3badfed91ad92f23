package domain_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// The golden digests below were computed once by this code and checked
// against an independent Python implementation of PLAN-4
// (json.dumps(doc, sort_keys=True, separators=(",", ":")) over the same
// document), so they pin the encoding across processes and architectures.
const (
	goldenSmallDigest   = "sha256:26ee7d522e8fe4c245b88a9af2abdae4360c1e53a66a73af92d802a1fb3a3396"
	goldenFixtureDigest = "sha256:417463d45c0fdf0f674982a78762cf3dc3e799ea091d42dac4dbabf2e5e3d33d"
)

func smallBundle() ports.Bundle {
	return ports.Bundle{Layout: ports.LayoutV1, AICRVersion: "1.1.0", Releases: []ports.BundleRelease{
		{
			Name: "cert-manager", Component: "cert-manager", Namespace: "cert-manager",
			Kind: ports.KindUpstream, CreateNamespace: true,
			Chart: ports.ChartSource{Repository: "https://charts.jetstack.io", Name: "cert-manager", Version: "v1.17.2"},
			Values: map[string]any{
				"crds": map[string]any{"enabled": true}, "replicaCount": float64(2), "note": "é<&>", "gone": nil,
			},
		},
		{
			Name: "gpu-operator", Component: "gpu-operator", Namespace: "gpu-operator",
			Kind: ports.KindUpstream, CreateNamespace: true, DependsOnComponents: []string{"cert-manager"},
			Chart: ports.ChartSource{Repository: "https://helm.ngc.nvidia.com/nvidia", Name: "gpu-operator", Version: "v25.10.1"},
			Values: map[string]any{
				"driver": map[string]any{"version": "580.105.08"}, "list": []any{"a", 1.5},
			},
		},
	}}
}

func TestDesiredStateDigest_Golden(t *testing.T) {
	t.Parallel()
	p, err := domain.BuildPlan(domain.PlanInput{RuntimeUID: "a", Bundle: smallBundle()})
	require.NoError(t, err)
	assert.Equal(t, goldenSmallDigest, p.Digest)

	other, err := domain.BuildPlan(domain.PlanInput{RuntimeUID: "b", Bundle: smallBundle()})
	require.NoError(t, err)
	assert.Equal(t, p.Digest, other.Digest, "same inputs, same digest (runtime UID is not part of it)")

	fixture := loadPlan(t, "v1-layout-synthetic-eks-h100-ubuntu-training-kubeflow")
	assert.Equal(t, goldenFixtureDigest, fixture.Digest)
}

func TestDesiredStateDigest_ChangesWithEachField(t *testing.T) {
	t.Parallel()
	base, err := domain.BuildPlan(domain.PlanInput{Bundle: smallBundle()})
	require.NoError(t, err)
	mutations := map[string]func(b *ports.Bundle){
		"namespace":       func(b *ports.Bundle) { b.Releases[0].Namespace = "other" },
		"repository":      func(b *ports.Bundle) { b.Releases[0].Chart.Repository = "oci://r/x" },
		"version":         func(b *ports.Bundle) { b.Releases[0].Chart.Version = "v1.17.3" },
		"manifest digest": func(b *ports.Bundle) { b.Releases[0].Chart.ManifestDigest = "sha256:00" },
		"values":          func(b *ports.Bundle) { b.Releases[0].Values["replicaCount"] = float64(3) },
		"null to empty":   func(b *ports.Bundle) { b.Releases[0].Values["gone"] = "" },
		"policy":          func(b *ports.Bundle) { b.Releases[0].CreateNamespace = false },
		"graph":           func(b *ports.Bundle) { b.Releases[1].DependsOnComponents = nil },
	}
	for name, mutate := range mutations {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := smallBundle()
			mutate(&b)
			p, err := domain.BuildPlan(domain.PlanInput{Bundle: b})
			require.NoError(t, err)
			assert.NotEqual(t, base.Digest, p.Digest)
		})
	}
}

func TestCanonicalJSON_MatchesPython(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   any
		want string
	}{
		{map[string]any{"b": 1.0, "a": []any{nil, true, "x"}}, `{"a":[null,true,"x"],"b":1}`},
		{"é<&>\u2028\n\t\"\\\x7f", `"\u00e9<&>\u2028\n\t\"\\\u007f"`},
		{"😀", `"\ud83d\ude00"`},
		{0.5, `0.5`},
		{1e-05, `1e-05`},
		{0.0001, `0.0001`},
		{-3.25, `-3.25`},
		{float64(1 << 40), `1099511627776`},
		{int64(-7), `-7`},
	}
	for _, tt := range tests {
		got, err := domain.CanonicalJSON(tt.in)
		require.NoError(t, err)
		assert.Equal(t, tt.want, string(got))
	}
	_, err := domain.CanonicalJSON(math.NaN())
	require.ErrorIs(t, err, domain.ErrNotCanonical)
	_, err = domain.CanonicalJSON(struct{}{})
	require.ErrorIs(t, err, domain.ErrNotCanonical)
}

func TestBuildPlan_Bounds(t *testing.T) {
	t.Parallel()
	long := release("a23456789012345678901234567890123456789012345678901234") // 54 chars
	_, err := domain.BuildPlan(domain.PlanInput{Bundle: v1Bundle(long)})
	var se *domain.StallError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, domain.StallContentTooLarge, se.Stall.Reason())

	ok := release("a2345678901234567890123456789012345678901234567890123") // 53 chars
	_, err = domain.BuildPlan(domain.PlanInput{Bundle: v1Bundle(ok)})
	require.NoError(t, err)

	for _, name := range []string{"GPU-operator", "gpu_operator", "gpu-operator-", "a..b", "x=y"} {
		_, err = domain.BuildPlan(domain.PlanInput{Bundle: v1Bundle(release(name))})
		require.ErrorAs(t, err, &se, name)
		assert.Equal(t, domain.StallAICRArtifactUnsupported, se.Stall.Reason(), name)
		assert.Contains(t, se.Stall.Message(), "is not a Helm release name", name)
	}
	_, err = domain.BuildPlan(domain.PlanInput{Bundle: v1Bundle(release("kube-prometheus.stack-2"))})
	require.NoError(t, err, "dots and digits are Helm release names")
}
