package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"golang.org/x/term"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/manager"
	"github.com/NVIDIA/aicr/test/chartrender"
	"github.com/NVIDIA/aicr/test/e2e/cluster"
	"github.com/NVIDIA/aicr/test/env"
	"github.com/NVIDIA/aicr/test/jobexec"
	"github.com/NVIDIA/aicr/test/network"
)

// demo is the state of one walkthrough.
type demo struct {
	workdir  string
	pause    time.Duration
	cp       *env.Env
	admin    client.Client
	adminKC  string
	procs    []*cluster.Process
	binaries string
	reg      *network.Server
	// keep leaves the control plane running after the walkthrough until Ctrl-C.
	keep bool
	// argoCD selects Argo CD: "real", "stand-in", or "auto" (real when its binaries are cached).
	argoCD string
	// real is whether the walkthrough runs the real Argo CD, as argoCD decides.
	real bool
	// appOfApps benchmarks the initial install against an app-of-apps at the end (real Argo CD).
	appOfApps bool
	// releases grows the recorded render to that many releases (0: as recorded).
	releases int
	// initial is the initial install the operator made with the real Argo CD.
	initial installTimes
	// installWatch measures the initial install for the benchmark.
	installWatch *installWatch
	// argo is the real Argo CD with the Kubernetes controllers and kwok, when it runs.
	argo *cluster.Cluster
	// stopFollowing ends the rollout watch before the control plane stops.
	stopFollowing context.CancelFunc
	// followed is closed once the rollout watch returned: it prints to the console, so the
	// demo waits for it before it returns (a test reads what the console received).
	followed chan struct{}
	// controlPlane is what the control plane starts with (the chaos suite's audit log).
	controlPlane env.Options
}

func runDemo(args []string) error {
	_, err := walkDemo(args)
	return err
}

// walkDemo runs the walkthrough args select and returns its initial install's figures.
func walkDemo(args []string) (installTimes, error) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	workdir := fs.String("workdir", filepath.Join(os.TempDir(), "aicr-demo"), "directory for kubeconfigs, binaries and logs")
	pause := fs.Duration("pause", 2*time.Second, "pause between stages, for a reader to follow (0 in CI)")
	keep := fs.Bool("keep", interactive(), "keep the control plane running at the end until Ctrl-C (default when run from a terminal)")
	timeout := fs.Duration("timeout", 10*time.Minute, "give up when the whole walkthrough takes longer")
	appOfApps := fs.Bool("benchmark-app-of-apps", false, "with the real Argo CD, end by installing the initial plan again "+
		"as an app-of-apps with sync waves, without the operator, and compare the wall times (replaces the operator's install)")
	releases := fs.Int("releases", 0, "grow the recorded AICR render to this many releases (16-128) with synthetic ones, "+
		"each a stand-in chart, and walk only the initial install (and the benchmark): the later stages need the recorded render")
	argoCD := fs.String("argocd", "auto", "Argo CD to run: real (its own controllers, `make e2e-tools` builds them), "+
		"stand-in (test/argocdsim), or auto (real when its binaries are cached)")
	if err := fs.Parse(args); err != nil {
		return installTimes{}, err
	}
	// The walkthrough prints what it does itself: the API server's warnings to its own
	// requests (Argo CD's finalizer name) are not logged.
	ctrllog.SetLogger(logr.Discard())
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if !slices.Contains([]string{"auto", "real", "stand-in"}, *argoCD) {
		return installTimes{}, fail("--argocd must be real, stand-in or auto, not %q", *argoCD)
	}
	if *releases != 0 && (*releases < 16 || *releases > 128) {
		return installTimes{}, fail("--releases must be 0 (the recorded render) or 16 to 128, not %d", *releases)
	}
	d := &demo{workdir: *workdir, pause: *pause, binaries: filepath.Join(*workdir, "bin"), keep: *keep, argoCD: *argoCD,
		appOfApps: *appOfApps, releases: *releases}
	if *appOfApps && (*keep || *argoCD == "stand-in") {
		return installTimes{}, fail("--benchmark-app-of-apps needs the real Argo CD and --keep=false: it replaces the operator's install")
	}
	defer d.stop()
	var err error
	if d.real, err = d.realArgoCD(); err != nil {
		return installTimes{}, fail("%v", err)
	}
	if err = d.walk(ctx); err != nil {
		return installTimes{}, fail("%v (logs in %s)", err, d.workdir)
	}
	if d.keep {
		<-signalContext().Done()
	}
	return d.initial, nil
}

func (d *demo) walk(ctx context.Context) error {
	stages := []func(context.Context) error{d.startControlPlane, d.install, d.startProcesses, d.applyRuntime, d.initialInstall}
	if d.releases == 0 {
		stages = append(stages, d.editApplication, d.changeOverride, d.approve, d.selfHeal, d.summary)
	}
	for _, s := range append(stages, d.benchmarkAppOfApps, d.explore) {
		if err := s(ctx); err != nil {
			return err
		}
		for _, p := range d.procs {
			if err := p.Exited(); err != nil {
				return err
			}
		}
		if d.argo != nil {
			if err := d.argo.Exited(); err != nil {
				return err
			}
		}
		pauseFor(d.pause)
	}
	return nil
}

func (d *demo) startControlPlane(context.Context) error {
	stage("Start a local control plane: kube-apiserver and etcd, built from the Go module proxy")
	if err := os.RemoveAll(d.workdir); err != nil {
		return err
	}
	if err := os.MkdirAll(d.binaries, 0o755); err != nil {
		return err
	}
	var err error
	if d.reg, err = network.Start(d.workdir, initialBundle, overrideBundle); err != nil {
		return err
	}
	progress("registry https://%s: the runtime registry (/v2/) and the upstream Helm repositories the renders name (/upstream/), as this machine has no internet", d.reg.Host())
	if d.releases > 0 {
		if err = d.reg.AddSyntheticCharts(aicrVersion, initialBundle, d.releases, syntheticNamespace); err != nil {
			return err
		}
		progress("the render grown to %d releases: each added one a stand-in chart of its own in namespace %s", d.releases, syntheticNamespace)
	}
	if d.cp, err = env.Start(d.controlPlane); err != nil {
		return err
	}
	progress("control plane up: kube-apiserver %s (its /version)", d.cp.ServerVersion.GitVersion)
	if d.adminKC, err = d.kubeconfig("admin", "demo-admin", "system:masters"); err != nil {
		return err
	}
	scheme, err := manager.NewScheme(apiextensionsv1.AddToScheme)
	if err != nil {
		return err
	}
	d.admin, err = client.New(d.cp.Config, client.Options{Scheme: scheme})
	progress("API server %s, admin kubeconfig %s", d.cp.Config.Host, d.adminKC)
	return err
}

func (d *demo) kubeconfig(file, user string, groups ...string) (string, error) {
	path := filepath.Join(d.workdir, file+".kubeconfig")
	return path, d.cp.WriteKubeConfig(path, user, groups...)
}

func (d *demo) install(ctx context.Context) error {
	stage("Install what the chart renders (CRDs, RBAC, admission policies, namespaces, AppProject) and Argo CD's CRDs")
	if err := installArgoCDCRDs(ctx, d.admin); err != nil {
		return err
	}
	args, err := installChart(ctx, d.admin, d.reg.Host(), d.real)
	if err != nil {
		return err
	}
	if err = createNodes(ctx, d.admin); err != nil {
		return err
	}
	progress("installed; registered nodes system-0 (%s=%s) and gpu-0 (%s=%s)", nodeGroupLabel, systemPool, nodeGroupLabel, gpuPool)
	progress("building the operator and kubectl-aicr")
	if err = build(ctx, d.binaries); err != nil {
		return err
	}
	operatorKC, err := d.kubeconfig("operator", operatorUser, "system:serviceaccounts", "system:serviceaccounts:"+operatorNamespace)
	if err != nil {
		return err
	}
	stage("Start the operator binary as its ServiceAccount, with the flags the chart's Deployment passes")
	p, err := start(d.workdir, "aicr-operator", operatorKC, d.reg.CAFile, filepath.Join(d.binaries, "aicr-operator"), args...)
	if err != nil {
		return err
	}
	d.procs = append(d.procs, p)
	progress("%s", strings.Join(args, " "))
	return nil
}

func (d *demo) startProcesses(ctx context.Context) error {
	op := d.procs[0].Args()
	var err error
	sims := [][]string{
		{"kubelet-simulator", "--namespace", chartrender.FlagValue(op, "--jobs-namespace"), "--image", chartrender.FlagValue(op, "--aicr-image"), "--operator-image", chartrender.FlagValue(op, "--operator-image"),
			"--aicr-version", aicrVersion, "--upstream-server", d.reg.URL(),
			"--validation-namespace", chartrender.FlagValue(op, "--validation-namespace"),
			"--validation-service-account", chartrender.FlagValue(op, "--validation-service-account"),
			"--discovery-namespace", chartrender.FlagValue(op, "--discovery-namespace"), "--releases", strconv.Itoa(d.releases)},
	}
	if d.real {
		stage("Start Argo CD %s's own application controller and repo server (built from its release's source) with Helm %s, "+
			"kube-controller-manager, kube-scheduler and kwok (nodes and pods without a kubelet), built from the Go module proxy; "+
			"and a kubelet simulator playing the AICR container", cluster.ArgoCDVersion, cluster.HelmVersion)
		if d.argo, err = cluster.Attach(ctx, d.cp, cluster.Options{
			WorkDir: d.workdir, CAFile: d.reg.CAFile, ArgoCDNamespace: chartrender.FlagValue(op, "--engine-namespace"),
		}); err != nil {
			return err
		}
		if err = installStandInCRDs(ctx, d.admin); err != nil {
			return err
		}
	} else {
		stage("Start the simulators in their own processes: a kubelet playing the AICR container, and a stand-in for Argo CD " +
			"(test/argocdsim; `make e2e-tools` builds the real one)")
		sims = append(sims, []string{"argocd-simulator", "--namespace", chartrender.FlagValue(op, "--engine-namespace")})
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	for _, sim := range sims {
		p, err := start(d.workdir, sim[0], d.adminKC, d.reg.CAFile, self, sim...)
		if err != nil {
			return err
		}
		d.procs = append(d.procs, p)
	}
	return nil
}

// realArgoCD decides whether the walkthrough runs the real Argo CD: always for --argocd=real
// (an error when its binaries are missing), never for stand-in, and for auto when they are cached.
func (d *demo) realArgoCD() (bool, error) {
	if d.argoCD == "stand-in" {
		return false, nil
	}
	_, err := cluster.BinDir()
	if err != nil && d.argoCD == "real" {
		return false, err
	}
	return err == nil, nil
}

func (d *demo) applyRuntime(ctx context.Context) error {
	stage("Apply the ClusterRuntime (training on kubeflow, EKS H100 Ubuntu, system and GPU node groups)")
	var follow context.Context
	follow, d.stopFollowing = context.WithCancel(ctx)
	d.followed = make(chan struct{})
	go func() {
		defer close(d.followed)
		if err := followRollouts(follow, d.cp.Config); err != nil {
			progress("stopped following rollouts: %v", err)
		}
	}()
	cr := demoRuntime(aicrv1alpha1.ValidationRequired)
	if d.appOfApps {
		var err error
		if d.installWatch, err = d.watchInstall(ctx); err != nil {
			return err
		}
	}
	if err := d.admin.Create(ctx, cr); err != nil {
		return err
	}
	stage("Resolve the plan: snapshot, recipe and bundle Jobs of the pinned AICR image")
	got, err := waitRuntime(ctx, d.admin, "the plan to resolve", func(cr *aicrv1alpha1.ClusterRuntime) bool {
		return conditionTrue(cr, aicrv1alpha1.ConditionResolved)
	})
	if err != nil {
		return err
	}
	progress("resolved plan %s", got.Status.CandidatePlanDigest)
	return nil
}

func (d *demo) initialInstall(ctx context.Context) error {
	stage("Roll out the initial install, one Argo CD Application per Helm release, in dependency order, then validate it")
	got, err := waitRuntime(ctx, d.admin, "the initial install", func(cr *aicrv1alpha1.ClusterRuntime) bool {
		return conditionTrue(cr, aicrv1alpha1.ConditionReady)
	})
	if err != nil {
		return err
	}
	progress("rolled out: active plan %s", got.Status.ActivePlanDigest)
	if d.argo == nil {
		return nil
	}
	namespace := chartrender.FlagValue(d.procs[0].Args(), "--engine-namespace")
	if d.initial.steps, err = printStepTimes(ctx, d.admin, namespace, "the initial install's steps"); err != nil {
		return err
	}
	if d.initial.apps, err = d.applications(ctx); err != nil {
		return err
	}
	if d.installWatch == nil {
		return nil
	}
	return d.measureInstall(ctx)
}

func repoRoot() string { return jobexec.Root() }

// interactive reports whether the demo runs from a terminal, which decides whether it keeps
// the control plane running at the end: standard input is a terminal. A character device is
// not enough: /dev/null is one too, so `make demo < /dev/null` would never exit.
func interactive() bool { return isTerminal(os.Stdin) }

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// demoRuntime is the ClusterRuntime the walkthrough applies: an EKS H100 training cluster with
// its system and GPU node groups, deployment validation as validation says.
func demoRuntime(validation aicrv1alpha1.DeploymentValidation) *aicrv1alpha1.ClusterRuntime {
	return &aicrv1alpha1.ClusterRuntime{
		ObjectMeta: metav1.ObjectMeta{Name: aicrv1alpha1.ClusterRuntimeName},
		Spec: aicrv1alpha1.ClusterRuntimeSpec{
			Intent: "training", Platform: "kubeflow",
			Criteria: map[string]aicrv1alpha1.CriterionValue{"service": "eks", "accelerator": "h100", "os": "ubuntu"},
			Placement: aicrv1alpha1.Placement{
				System: aicrv1alpha1.NodeGroup{
					NodeSelector: map[string]aicrv1alpha1.LabelValue{nodeGroupLabel: systemPool},
					Tolerations:  []aicrv1alpha1.Toleration{{Key: "dedicated", Operator: "Equal", Value: "system", Effect: "NoSchedule"}},
				},
				Accelerated: aicrv1alpha1.NodeGroup{
					NodeSelector: map[string]aicrv1alpha1.LabelValue{nodeGroupLabel: gpuPool},
					Tolerations:  []aicrv1alpha1.Toleration{{Key: "nvidia.com/gpu", Operator: "Equal", Value: "present", Effect: "NoSchedule"}},
				},
			},
			Validation: aicrv1alpha1.ValidationPolicy{Deployment: validation},
		},
	}
}
