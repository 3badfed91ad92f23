package oci_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/nvidia/aicr-operator/adapters/oci"
)

func benchRegistry(b *testing.B) *oci.Registry {
	b.Helper()
	host := serveRegistry(b, nil)
	reg, err := oci.New(oci.Options{Registry: host + "/aicr", PlainHTTP: true, Retry: fastRetry})
	require.NoError(b, err)
	return reg
}

// BenchmarkPushBundle pushes the fixture bundle into an empty registry.
func BenchmarkPushBundle(b *testing.B) {
	ctx := context.Background()
	src := os.DirFS(fixtureBundle)
	for range b.N {
		b.StopTimer()
		reg := benchRegistry(b)
		b.StartTimer()
		_, err := reg.PushBundle(ctx, planDigest, src)
		require.NoError(b, err)
	}
}

// BenchmarkPullBundle pulls the fixture bundle by digest.
func BenchmarkPullBundle(b *testing.B) {
	ctx := context.Background()
	reg := benchRegistry(b)
	d, err := reg.PushBundle(ctx, planDigest, os.DirFS(fixtureBundle))
	require.NoError(b, err)
	for b.Loop() {
		_, err := reg.PullBundle(ctx, d)
		require.NoError(b, err)
	}
}

// BenchmarkPullLargestBundle pushes and pulls a bundle at the largest size the operator
// accepts (MaxBundleFiles files, MaxBundleBytes in all) and reports the peak heap of the pull,
// the pulled bundle itself (held in memory, as the operator holds it) included (issue 19,
// goal 4):
//
//	go test ./adapters/oci -run '^$' -bench BenchmarkPullLargestBundle -benchtime 3x
func BenchmarkPullLargestBundle(b *testing.B) {
	ctx := context.Background()
	reg := benchRegistry(b)
	bundle := fstest.MapFS{}
	size := oci.MaxBundleBytes / oci.MaxBundleFiles
	for i := range oci.MaxBundleFiles {
		bundle[fmt.Sprintf("%03d-release/values.yaml", i)] = &fstest.MapFile{Data: bytes.Repeat([]byte{byte('a' + i%26)}, size)}
	}
	d, err := reg.PushBundle(ctx, planDigest, bundle)
	require.NoError(b, err)
	var peak uint64
	for b.Loop() {
		peak = max(peak, peakHeap(func() {
			_, err := reg.PullBundle(ctx, d)
			require.NoError(b, err)
		}))
	}
	b.ReportMetric(float64(oci.MaxBundleBytes)/(1<<20), "bundle-MiB")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
