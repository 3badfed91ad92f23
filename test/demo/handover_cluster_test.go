//go:build handover

package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/NVIDIA/aicr/adapters/argocd"
	"github.com/NVIDIA/aicr/adapters/clock"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/manager"
	"github.com/NVIDIA/aicr/test/argocdsim"
	"github.com/NVIDIA/aicr/test/chartrender"
	"github.com/NVIDIA/aicr/test/env"
	"github.com/NVIDIA/aicr/test/network"
)

// leaseFlags are the chart's operator.leaderElection values a handover cluster installs with.
type leaseFlags struct {
	duration, renewDeadline, retryPeriod time.Duration
}

// chartDefaults are the chart's own leader election values.
var chartDefaults = leaseFlags{duration: 15 * time.Second, renewDeadline: 10 * time.Second, retryPeriod: 2 * time.Second}

// takeoverBound is how long a standby may take to hold a Lease its holder stopped renewing:
// the lease duration from the holder's last renewal, plus two of the standby's acquire
// attempts, each retryPeriod apart with client-go's jitter of up to 1.2 retry periods more (one
// to observe the last renewal, one to take the expired Lease), plus slack for a loaded machine.
func (f leaseFlags) takeoverBound() time.Duration {
	return f.duration + 2*f.retryPeriod*22/10 + 5*time.Second
}

// handoverCluster is a control plane writing an audit log, the chart's objects, a kubelet
// simulator process and an in-process Argo CD stand-in that holds each Application's step in
// flight until the test releases it, and two operator replicas of the real binary.
type handoverCluster struct {
	t       *testing.T
	workdir string
	cp      *env.Env
	admin   client.Client
	reg     *network.Server
	audit   string
	args    []string
	bin     string
	flags   leaseFlags
	sim     *argocdsim.Sim
	// order are the Applications in the order they appeared (the steps' order); released
	// those whose step the stand-in let finish.
	order    []string
	released map[string]bool
	replicas []*replica
}

// startHandoverCluster starts everything but the operator replicas, with the chart installed
// with flags as its leader election values.
func startHandoverCluster(t *testing.T, flags leaseFlags) *handoverCluster {
	t.Helper()
	// The tests report what they measure; the API server's warnings to their own requests are
	// not logged.
	ctrllog.SetLogger(logr.Discard())
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	h := &handoverCluster{t: t, workdir: t.TempDir(), flags: flags, released: map[string]bool{}}
	h.audit = filepath.Join(h.workdir, "audit.log")
	t.Cleanup(func() {
		if t.Failed() {
			logTails(t, h.workdir)
		}
	})
	var err error
	h.reg, err = network.Start(h.workdir, initialBundle, overrideBundle)
	require.NoError(t, err)
	t.Cleanup(h.reg.Close)
	h.cp, err = env.Start(env.Options{AuditLog: h.audit})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, h.cp.Stop()) })
	scheme, err := manager.NewScheme(apiextensionsv1.AddToScheme, argocd.AddToScheme)
	require.NoError(t, err)
	h.admin, err = client.New(h.cp.Config, client.Options{Scheme: scheme})
	require.NoError(t, err)
	require.NoError(t, installArgoCDCRDs(ctx, h.admin))
	h.args = h.installChart(ctx)
	require.NoError(t, createNodes(ctx, h.admin))
	bin := filepath.Join(h.workdir, "bin")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	require.NoError(t, build(ctx, bin))
	h.bin = filepath.Join(bin, "aicr-operator")
	h.startKubelet()
	h.startArgoCD(scheme)
	return h
}

// installChart installs what the chart renders with the demo's values and h's leader election
// values, and returns the operator's arguments.
func (h *handoverCluster) installChart(ctx context.Context) []string {
	values := chartValues(h.reg.Host(), false)
	values["operator"] = map[string]any{"replicas": 2, "leaderElection": map[string]any{
		"enabled": true, "leaseDuration": h.flags.duration.String(),
		"renewDeadline": h.flags.renewDeadline.String(), "retryPeriod": h.flags.retryPeriod.String(),
	}}
	objs, err := chartrender.Render(operatorNamespace, values)
	require.NoError(h.t, err)
	for _, ns := range []string{operatorNamespace, "argocd"} {
		require.NoError(h.t, client.IgnoreAlreadyExists(h.admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})))
	}
	require.NoError(h.t, chartrender.Install(ctx, h.admin, operatorNamespace, objs, "Deployment"))
	require.NoError(h.t, network.CreateRegistrySecrets(ctx, h.admin, operatorNamespace, h.reg.Host()))
	args, err := chartrender.OperatorArgs(objs, operatorNamespace)
	require.NoError(h.t, err)
	return args
}

// startKubelet starts the kubelet simulator in its own process, as the demo does.
func (h *handoverCluster) startKubelet() {
	kc := filepath.Join(h.workdir, "admin.kubeconfig")
	require.NoError(h.t, h.cp.WriteKubeConfig(kc, "demo-admin", "system:masters"))
	self, err := os.Executable()
	require.NoError(h.t, err)
	op := h.args
	p, err := start(h.workdir, "kubelet-simulator", kc, h.reg.CAFile, self, "kubelet-simulator",
		"--namespace", chartrender.FlagValue(op, "--jobs-namespace"), "--image", chartrender.FlagValue(op, "--aicr-image"),
		"--operator-image", chartrender.FlagValue(op, "--operator-image"), "--aicr-version", aicrVersion,
		"--upstream-server", h.reg.URL(), "--validation-namespace", chartrender.FlagValue(op, "--validation-namespace"),
		"--validation-service-account", chartrender.FlagValue(op, "--validation-service-account"),
		"--discovery-namespace", chartrender.FlagValue(op, "--discovery-namespace"))
	require.NoError(h.t, err)
	h.t.Cleanup(p.Stop)
}

// startArgoCD runs the Argo CD stand-in in this process: every Application stays Progressing
// (its step in flight) until release marks it healthy.
func (h *handoverCluster) startArgoCD(scheme *k8sruntime.Scheme) {
	mgr, err := ctrl.NewManager(h.cp.Config, ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	require.NoError(h.t, err)
	h.sim = argocdsim.New(mgr.GetClient(), chartrender.FlagValue(h.args, "--engine-namespace"), clock.New())
	h.sim.SetDefault(argocdsim.Progressing)
	require.NoError(h.t, h.sim.SetupWithManager(mgr))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	h.t.Cleanup(func() {
		cancel()
		require.NoError(h.t, <-done)
	})
}

// createRuntime applies the demo's ClusterRuntime without deployment validation: the
// handover tests follow the steps of its initial install.
func (h *handoverCluster) createRuntime(ctx context.Context) {
	cr := demoRuntime(aicrv1alpha1.ValidationDisabled)
	require.NoError(h.t, h.admin.Create(ctx, cr))
}
