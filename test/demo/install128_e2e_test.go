//go:build e2e

package main

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/test/procstat"
)

// BenchmarkInstall128RealArgoCD measures the operator on the real Argo CD at the most releases
// the API admits: the walkthrough (--releases=128 --benchmark-app-of-apps) installs the recorded
// AICR render grown to 128 releases (jobexec.AddSyntheticReleases; every upstream chart a
// stand-in the test registry serves to Argo CD's repo server) with the operator, then, the
// operator stopped and its Applications deleted with their resources, the same plan as one
// app-of-apps with sync waves in plan order on the same cluster. It reports both wall times
// (s/operator, s/app-of-apps: from the first write to the last Application synced and healthy,
// as the API server stamps them, in whole seconds) and their ratio (goal <= 0.5); from a watch
// of the Applications in this process, the operator's CPU time over its install (its process's
// utime and stime in /proc) and its share of the install's wall time as the watch saw it, and
// the time from a step ready (the Argo CD adapter's judgement: synced, Healthy) to the next
// step's Application created, median (goal <= 50 ms) and p95; and the operator's memory once
// the runtime is Ready (goal <= 64 MiB). The operator is the aicr-operator binary in its own
// process, so the memory and the CPU time are its alone. It takes about half an hour on 2
// cores, and neither `make e2e` nor `make test` runs it:
//
//	KUBEBUILDER_ASSETS=$(test/tools/envtest-bins.sh) go test -tags e2e -run '^$' -bench BenchmarkInstall128RealArgoCD -benchtime 1x -timeout 90m -v ./test/demo/
func BenchmarkInstall128RealArgoCD(b *testing.B) {
	const releases = 128
	workdir := b.TempDir()
	var out bytes.Buffer
	console = &lockedWriter{w: io.MultiWriter(&out, testLog{b})}
	var got installTimes
	iterations := 0
	for b.Loop() {
		iterations++
		require.Equal(b, 1, iterations, "one install per cluster: run the benchmark with -benchtime 1x")
		var err error
		got, err = walkDemo([]string{"--pause=0", "--keep=false", "--argocd=real", "--timeout=80m", "--workdir", workdir,
			"--releases=128", "--benchmark-app-of-apps"})
		if err != nil {
			logTails(b, workdir)
		}
		require.NoError(b, err)
	}
	require.Len(b, got.apps, releases)
	require.Equal(b, releases, got.usage.steps)
	assert.Regexp(b, `(?m)^\s+initial install of 128 releases: the operator \S+, the app-of-apps with sync waves \S+, ratio operator/app-of-apps \d+\.\d\d$`, out.String())
	b.ReportMetric(got.operator.Seconds(), "s/operator")
	b.ReportMetric(got.appOfApps.Seconds(), "s/app-of-apps")
	b.ReportMetric(got.operator.Seconds()/got.appOfApps.Seconds(), "ratio")
	b.ReportMetric(got.usage.cpu.Seconds(), "s/operator-cpu")
	b.ReportMetric(100*got.usage.cpu.Seconds()/got.usage.wall.Seconds(), "%/operator-cpu-share")
	b.ReportMetric(float64(percentile(got.usage.overhead, 50))/float64(time.Millisecond), "ms/ready-to-write-median")
	b.ReportMetric(float64(percentile(got.usage.overhead, 95))/float64(time.Millisecond), "ms/ready-to-write-p95")
	procstat.ReportMemory(b, "", got.memory)
}
