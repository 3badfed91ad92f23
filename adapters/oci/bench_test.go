package oci_test

import (
	"context"
	"os"
	"testing"

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
