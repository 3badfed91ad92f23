package domain_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/aicr"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// bundle128 builds a 128-release bundle whose values cycle through the real
// values of the v1 fixture (so the values are realistically large), with each
// release depending on the previous component.
func bundle128(b *testing.B, version string) ports.Bundle {
	b.Helper()
	fixture, err := aicr.ReadDir(filepath.Join(fixtures, "v1-layout-synthetic-eks-h100-ubuntu-training-kubeflow", "bundle-helm"))
	require.NoError(b, err)
	out := ports.Bundle{Layout: ports.LayoutV1, AICRVersion: "1.1.0"}
	for i := range domain.MaxReleases {
		src := fixture.Releases[i%len(fixture.Releases)]
		r := src
		r.Name = fmt.Sprintf("%s-%03d", src.Name, i)
		r.Component = r.Name
		r.Chart.Version = version
		r.DependsOnComponents = nil
		if i > 0 {
			r.DependsOnComponents = []string{out.Releases[i-1].Component}
		}
		out.Releases = append(out.Releases, r)
	}
	return out
}

func BenchmarkDesiredStateDigest128(b *testing.B) {
	p, err := domain.BuildPlan(domain.PlanInput{RuntimeUID: uid, Bundle: bundle128(b, "v1")})
	require.NoError(b, err)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := domain.DesiredStateDigest(p.Releases); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPlanTransition128(b *testing.B) {
	active, err := domain.BuildPlan(domain.PlanInput{RuntimeUID: uid, Bundle: bundle128(b, "v1")})
	require.NoError(b, err)
	nb := bundle128(b, "v1")
	for i := 0; i < len(nb.Releases); i += 2 {
		nb.Releases[i].Chart.Version = "v2" // half the releases upgrade
	}
	target, err := domain.BuildPlan(domain.PlanInput{RuntimeUID: uid, Bundle: nb})
	require.NoError(b, err)
	in := domain.TransitionInput{Active: active, Target: target}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := domain.PlanTransition(in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuildPlan128(b *testing.B) {
	bundle := bundle128(b, "v1")
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := domain.BuildPlan(domain.PlanInput{RuntimeUID: uid, Bundle: bundle}); err != nil {
			b.Fatal(err)
		}
	}
}
