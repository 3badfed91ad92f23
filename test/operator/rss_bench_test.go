package operator_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/procfs"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/NVIDIA/aicr/adapters/argocd"
	"github.com/NVIDIA/aicr/adapters/kube/manager"
	"github.com/NVIDIA/aicr/test/env"
	"github.com/NVIDIA/aicr/test/jobexec"
	"github.com/NVIDIA/aicr/test/network"
	"github.com/NVIDIA/aicr/test/procstat"
)

// BenchmarkOperatorRSS starts the operator binary as its ServiceAccount in a cluster holding
// 10,000 unrelated ConfigMaps, 1,000 Secrets and 2,000 Nodes that look like GPU nodes (GPU
// Feature Discovery labels, allocatable, 50 images in their status) and reports its resident
// set size once its caches have synced (goal <= 64 MiB): the caches hold only the operator's
// labelled objects and a Node's name and a digest of its labels, and Secrets are never listed
// (OPS-2, CH-4).
// It also reports the two parts of the RSS: anonymous memory (heap, stacks: what the caches
// cost) and the pages of the binary's file mapped into memory (the code and read-only data of
// every linked package). Then it applies a ClusterRuntime whose AICR render has 128 releases
// and reports the same figures, prefixed rollout-, once the operator has resolved it (snapshot,
// recipe and bundle Jobs, 128 charts mirrored), rolled it out (128 Applications, which a
// stand-in Argo CD marks synced and healthy) and validated it: the runtime is Ready.
//
//	go test ./test/operator -run '^$' -bench BenchmarkOperatorRSS -benchtime 1x
func BenchmarkOperatorRSS(b *testing.B) {
	ctrl.SetLogger(zap.New(zap.WriteTo(io.Discard))) // the control plane's helpers log through controller-runtime
	dir := b.TempDir()
	net, err := network.Start(dir)
	require.NoError(b, err)
	b.Cleanup(net.Close)
	// The operator (which inherits this environment) and the in-process AICR reach the server
	// over HTTPS: trust its certificate before anything loads the system roots.
	b.Setenv("SSL_CERT_FILE", net.CAFile)
	cp, err := env.Start(env.Options{CRDDirectoryPaths: []string{filepath.Join(jobexec.Root(), "test", "testdata", "argocd", "crds")}})
	require.NoError(b, err)
	b.Cleanup(func() { require.NoError(b, cp.Stop()) })
	ctx := context.Background()
	scheme, err := manager.NewScheme(argocd.AddToScheme, apiextensionsv1.AddToScheme)
	require.NoError(b, err)
	admin, err := client.New(cp.Config, client.Options{Scheme: scheme})
	require.NoError(b, err)
	fixture := syntheticFixture(b, net)
	args := installChart(ctx, b, admin, net.Host())
	fill(ctx, b, admin, "noise", 10000, 1000)
	gpuNodes(ctx, b, admin, 2000)
	for _, n := range jobexec.FixtureNodes() {
		require.NoError(b, admin.Create(ctx, n))
	}

	bin := filepath.Join(dir, "aicr-operator")
	build := exec.Command("go", "build", "-o", bin, "github.com/NVIDIA/aicr/cmd/aicr-operator")
	build.Stderr = os.Stderr
	require.NoError(b, build.Run())
	kubeconfig := filepath.Join(dir, "operator.kubeconfig")
	raw, err := cp.KubeConfig(operatorUser, "system:serviceaccounts", "system:serviceaccounts:"+operatorNamespace)
	require.NoError(b, err)
	require.NoError(b, os.WriteFile(kubeconfig, raw, 0o600))

	iterations := 0
	for b.Loop() {
		iterations++
		require.Equal(b, 1, iterations, "the rollout needs a fresh cluster: run the benchmark with -benchtime 1x")
		op := startOperator(b, bin, kubeconfig, args)
		procstat.ReportMemory(b, "", op.memory(b))
		simulate(ctx, b, cp.Config, scheme, args, fixture)
		steps := rollOut(ctx, b, admin, op)
		procstat.ReportMemory(b, "rollout-", op.memory(b))
		b.ReportMetric(float64(steps), "rollout-steps")
	}
}

// operatorProcess is the running operator binary and the last lines it logged.
type operatorProcess struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	tail []string
}

// startOperator runs the operator until every controller's caches have synced
// (controller-runtime logs "Starting workers" then); it is killed when the benchmark ends.
func startOperator(b *testing.B, bin, kubeconfig string, args []string) *operatorProcess {
	op := &operatorProcess{cmd: exec.Command(bin, args...)}
	op.cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	logs, err := op.cmd.StderrPipe()
	require.NoError(b, err)
	require.NoError(b, op.cmd.Start())
	b.Cleanup(func() {
		_ = op.cmd.Process.Kill()
		_ = op.cmd.Wait()
	})
	started := make(chan struct{})
	go func() {
		scanner := bufio.NewScanner(logs)
		var once sync.Once
		for scanner.Scan() { // keep draining so the process never blocks on a full pipe
			op.mu.Lock()
			op.tail = append(op.tail[max(0, len(op.tail)-19):], scanner.Text())
			op.mu.Unlock()
			if strings.Contains(scanner.Text(), "Starting workers") {
				once.Do(func() { close(started) })
			}
		}
	}()
	select {
	case <-started:
	case <-time.After(2 * time.Minute):
		b.Fatalf("the operator did not start within 2 minutes; its last log lines:\n%s", op.lastLines())
	}
	return op
}

// lastLines are the last lines the operator logged.
func (op *operatorProcess) lastLines() string {
	op.mu.Lock()
	defer op.mu.Unlock()
	return strings.Join(op.tail, "\n")
}

// memory reads the operator's memory figures from /proc.
func (op *operatorProcess) memory(b *testing.B) procfs.ProcStatus {
	m, err := procstat.Memory(op.cmd.Process.Pid)
	require.NoError(b, err)
	return m
}

// fill creates configMaps unrelated ConfigMaps and secrets Secrets in namespace.
func fill(ctx context.Context, b *testing.B, c client.Client, namespace string, configMaps, secrets int) {
	require.NoError(b, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}))
	payload := strings.Repeat("x", 1024)
	for i := range configMaps {
		require.NoError(b, c.Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%05d", i), Namespace: namespace},
			Data:       map[string]string{"payload": payload},
		}))
	}
	for i := range secrets {
		require.NoError(b, c.Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("secret-%04d", i), Namespace: namespace},
			StringData: map[string]string{"payload": payload},
		}))
	}
}

// gpuNodes registers n Nodes shaped like the GPU nodes of a large fleet: the labels GPU Feature
// Discovery and the cloud set, GPU allocatable and a status listing 50 images.
func gpuNodes(ctx context.Context, b *testing.B, c client.Client, n int) {
	images := make([]corev1.ContainerImage, 50)
	for i := range images {
		images[i] = corev1.ContainerImage{SizeBytes: 1 << 30, Names: []string{
			fmt.Sprintf("nvcr.io/nvidia/image-%02d@sha256:%064d", i, i), fmt.Sprintf("nvcr.io/nvidia/image-%02d:v%d.0.0", i, i)}}
	}
	for i := range n {
		labels := map[string]string{"node.kubernetes.io/instance-type": "p5.48xlarge", "topology.kubernetes.io/zone": "us-west-2a"}
		for _, k := range []string{"product", "family", "memory", "count", "replicas", "machine", "compute.major", "compute.minor",
			"cuda.driver.major", "cuda.driver.minor", "cuda.driver.rev", "cuda.runtime.major", "cuda.runtime.minor", "mig.capable",
			"sharing-strategy", "deploy.driver", "deploy.gpu-feature-discovery", "deploy.container-toolkit", "deploy.dcgm-exporter",
			"deploy.device-plugin", "deploy.operator-validator", "present"} {
			labels["nvidia.com/gpu."+k] = "value-" + k
		}
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("gpu-%04d", i), Labels: labels}}
		require.NoError(b, c.Create(ctx, node))
		node.Status = corev1.NodeStatus{
			Capacity:    corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8"), corev1.ResourceCPU: resource.MustParse("192")},
			Allocatable: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("8"), corev1.ResourceCPU: resource.MustParse("190")},
			Images:      images,
		}
		require.NoError(b, c.Status().Update(ctx, node))
	}
}
