package oci_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/NVIDIA/aicr/adapters/bundletar"
	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/test/aicroci"
)

// largestBundleFiles is the file count of the largest bundle benchmarked: with a folder per
// file, 2 entries a file stay under bundletar.MaxBundleEntries.
const largestBundleFiles = 4096

func benchRegistry(b *testing.B) *oci.Registry {
	b.Helper()
	host := serveRegistry(b, nil)
	reg, err := oci.New(oci.Options{Registry: host + "/aicr", PlainHTTP: true, Retry: fastRetry})
	require.NoError(b, err)
	return reg
}

// BenchmarkPullBundle pulls the fixture bundle by digest, as AICR pushed it.
func BenchmarkPullBundle(b *testing.B) {
	ctx := context.Background()
	reg := benchRegistry(b)
	art, err := aicroci.Bundle(fixtureFiles(b))
	require.NoError(b, err)
	d := pushAICR(b, reg, art, auth.EmptyCredential)
	for b.Loop() {
		_, err := reg.PullBundle(ctx, d)
		require.NoError(b, err)
	}
}

// BenchmarkPullLargestBundle pushes and pulls a bundle at the largest size the operator
// accepts (largestBundleFiles files of bundletar.MaxBundleBytes in all) and reports the peak heap of the pull,
// the pulled bundle itself (held in memory, as the operator holds it) included:
//
//	go test ./adapters/oci -run '^$' -bench BenchmarkPullLargestBundle -benchtime 3x
func BenchmarkPullLargestBundle(b *testing.B) {
	ctx := context.Background()
	reg := benchRegistry(b)
	bundle := map[string][]byte{}
	size := bundletar.MaxBundleBytes / largestBundleFiles
	for i := range largestBundleFiles {
		bundle[fmt.Sprintf("%04d-release/values.yaml", i)] = bytes.Repeat([]byte{byte('a' + i%26)}, size)
	}
	art, err := aicroci.Bundle(bundle)
	require.NoError(b, err)
	d := pushAICR(b, reg, art, auth.EmptyCredential)
	var peak uint64
	for b.Loop() {
		peak = max(peak, peakHeap(func() {
			_, err := reg.PullBundle(ctx, d)
			require.NoError(b, err)
		}))
	}
	b.ReportMetric(float64(bundletar.MaxBundleBytes)/(1<<20), "bundle-MiB")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
