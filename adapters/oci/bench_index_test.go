package oci_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/ports"
)

// BenchmarkMirrorFromLargeIndex mirrors one chart from an upstream Helm repository whose
// index.yaml is 50 MiB (many charts, many versions), as large repositories' indexes are, and
// reports the peak heap while it does, the index itself (held by the test server) included:
//
//	go test ./adapters/oci -run '^$' -bench BenchmarkMirrorFromLargeIndex -benchtime 3x
func BenchmarkMirrorFromLargeIndex(b *testing.B) {
	e := newTLSEnv(b)
	index := largeIndex(50<<20, hexDigest(e.repo.archive))
	e.repo.routes = map[string]http.HandlerFunc{"/nvidia/index.yaml": func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write(index)
	}}
	upstream := ports.UpstreamChart{Chart: ports.ChartSource{Repository: e.repoURL + "/nvidia", Name: tlsChart, Version: tlsVersion}}
	var peak uint64
	for b.Loop() {
		peak = max(peak, peakHeap(func() {
			_, err := e.reg.MirrorChart(context.Background(), upstream)
			require.NoError(b, err)
		}))
	}
	b.ReportMetric(float64(len(index))/(1<<20), "index-MiB")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}

// largeIndex is a Helm repository index of about size bytes: many charts and versions, then,
// last so the whole index is read, the chart the mirror wants with its archive's digest.
func largeIndex(size int, digest string) []byte {
	var buf bytes.Buffer
	buf.WriteString("apiVersion: v1\nentries:\n")
	for c := 0; buf.Len() < size; c++ {
		fmt.Fprintf(&buf, "  chart-%05d:\n", c)
		for v := 0; v < 50; v++ {
			fmt.Fprintf(&buf, "  - apiVersion: v2\n    name: chart-%05d\n    version: 1.%d.0\n    appVersion: 1.%d.0\n"+
				"    description: A chart of a large repository, one of its many versions, with a long description line.\n"+
				"    digest: %064d\n    created: \"2026-01-01T00:00:00Z\"\n    urls:\n    - https://charts.example.com/chart-%05d-1.%d.0.tgz\n",
				c, v, v, c*100+v, c, v)
		}
	}
	fmt.Fprintf(&buf, "  %s:\n  - apiVersion: v2\n    name: %s\n    version: %s\n    digest: %s\n    urls:\n    - chart.tgz\n",
		tlsChart, tlsChart, tlsVersion, digest)
	return buf.Bytes()
}

// peakHeap runs f and returns the largest heap in use seen while it ran, sampled every
// millisecond, after a garbage collection before it started.
func peakHeap(f func()) uint64 {
	runtime.GC()
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	wg.Wait()
	return peak.Load()
}
