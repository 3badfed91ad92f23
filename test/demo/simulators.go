package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/NVIDIA/aicr/adapters/argocd"
	"github.com/NVIDIA/aicr/adapters/clock"
	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/adapters/kube/manager"
	"github.com/NVIDIA/aicr/test/argocdsim"
	"github.com/NVIDIA/aicr/test/e2e/cluster"
	"github.com/NVIDIA/aicr/test/jobexec"
	"github.com/NVIDIA/aicr/test/network"
)

// Fixture bundles the kubelet simulator plays: the initial render, and the render with the
// demo's overrides (the bundle Job carries --set or --set-json).
var (
	initialBundle  = filepath.Join("v1-layout-synthetic-eks-h100-ubuntu-training-kubeflow", "bundle-helm")
	overrideBundle = filepath.Join("upgrade-set-overrides-eks-h100-ubuntu-training-kubeflow", "v1-synthetic", "bundle-helm")
)

// syntheticNamespace is where the releases --releases adds to the recorded render install.
const syntheticNamespace = "gpu-operator"

// installStandInCRDs installs the custom kinds the fixture bundles' local manifests use, which
// the real upstream charts would define and their stand-ins do not.
func installStandInCRDs(ctx context.Context, c client.Client) error {
	fixtures := filepath.Join(jobexec.Root(), "test", "testdata", "aicr")
	crds, err := cluster.StandInCRDs(filepath.Join(fixtures, initialBundle), filepath.Join(fixtures, overrideBundle))
	if err != nil {
		return err
	}
	for _, crd := range crds {
		if err := c.Create(ctx, crd); client.IgnoreAlreadyExists(err) != nil {
			return fmt.Errorf("create CRD %s: %w", crd.Name, err)
		}
	}
	return nil
}

// runKubeletSimulator plays the AICR container of every Job in the jobs namespace, the snapshot
// agent of every Job in the discovery namespace and aicr validate, with the agent and checks it
// starts, of every Job in the validation namespace until SIGTERM.
func runKubeletSimulator(args []string) error {
	ctrl.SetLogger(zap.New())
	fs := flag.NewFlagSet("kubelet-simulator", flag.ContinueOnError)
	namespace := fs.String("namespace", "aicr-jobs", "namespace of the AICR Jobs")
	image := fs.String("image", "", "AICR image every Job must run, pinned by digest")
	operatorImage := fs.String("operator-image", "", "operator image every bundle Job's image-refs container must run")
	version := fs.String("aicr-version", "1.1.0", "AICR version the simulated container reports")
	server := fs.String("upstream-server", "", "demo server whose copies of the upstream Helm repositories the renders name")
	validationNamespace := fs.String("validation-namespace", "aicr-validation", "namespace of the deployment validation Jobs")
	validatorIdentity := fs.String("validation-service-account", "aicr-operator-validate", "identity aicr validate runs as")
	discoveryNamespace := fs.String("discovery-namespace", "aicr-discovery", "namespace of the snapshot agent's Jobs")
	releases := fs.Int("releases", 0, "grow the initial render to this many releases (0: as recorded)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var initial jobexec.Fixture
	var err error
	if *releases > 0 {
		initial, err = network.SyntheticFixture(*version, initialBundle, *releases, syntheticNamespace, *server)
	} else {
		initial, err = jobexec.BundleFixture(*version, initialBundle, network.PointUpstreamAt(*server))
	}
	if err != nil {
		return fmt.Errorf("load the initial fixture: %w", err)
	}
	withOverride, err := jobexec.BundleFixture(*version, overrideBundle, network.PointUpstreamAt(*server))
	if err != nil {
		return fmt.Errorf("load the override fixture: %w", err)
	}
	behavior := func(job *batchv1.Job, inputs *corev1.ConfigMap) jobexec.Result {
		if args := jobexec.AICRArgs(job); slices.Contains(args, "--set-json") || slices.Contains(args, "--set") {
			return withOverride.Behavior()(job, inputs)
		}
		return initial.Behavior()(job, inputs)
	}
	scheme, err := manager.NewScheme()
	if err != nil {
		return err
	}
	cfg := ctrl.GetConfigOrDie()
	aicrJobs, err := jobexec.New(cfg, scheme, *namespace, *image, behavior)
	if err != nil {
		return err
	}
	aicrJobs.ExpectCopierImage(*operatorImage)
	validation, err := jobexec.New(cfg, scheme, *validationNamespace, *image, initial.Behavior())
	if err != nil {
		return err
	}
	validation.ExpectServiceAccount(*validatorIdentity)
	agent, err := jobexec.New(cfg, scheme, *discoveryNamespace, *image, initial.Behavior())
	if err != nil {
		return err
	}
	agent.ExpectSnapshotAgent(jobs.AgentServiceAccount)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	executors := []*jobexec.Executor{aicrJobs, agent, validation}
	errs := make(chan error, len(executors))
	for _, e := range executors {
		go func() { errs <- e.Run(ctx) }()
	}
	for range executors {
		if err := <-errs; err != nil && !errors.Is(err, context.Canceled) {
			stop()
			return err
		}
	}
	return nil
}

// runArgoCDSimulator marks every Application in its namespace synced and healthy until SIGTERM.
func runArgoCDSimulator(args []string) error {
	ctrl.SetLogger(zap.New())
	fs := flag.NewFlagSet("argocd-simulator", flag.ContinueOnError)
	namespace := fs.String("namespace", "argocd", "namespace of the Argo CD Applications")
	if err := fs.Parse(args); err != nil {
		return err
	}
	scheme, err := manager.NewScheme(argocd.AddToScheme)
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
	})
	if err != nil {
		return fmt.Errorf("build manager: %w", err)
	}
	if err := argocdsim.New(mgr.GetClient(), *namespace, clock.New()).SetupWithManager(mgr); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	return mgr.Start(ctx)
}
