package main

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/NVIDIA/aicr/adapters/aicr"
	"github.com/NVIDIA/aicr/adapters/clock"
	"github.com/NVIDIA/aicr/adapters/jobs"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/resolver"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/retention"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/adapters/kube/manager"
	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/adapters/sealer"
	"github.com/NVIDIA/aicr/adapters/workloads"
	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/ports"
)

func provideClock() ports.Clock { return clock.New() }

// provideSealer loads the operator's seal key from its Secret in the operator namespace, making
// it on the first start (adapters/sealer), read without the cache: the operator may not list or
// watch Secrets.
func provideSealer(ctx context.Context, cfg app.Config, mgr ctrl.Manager) (ports.Sealer, error) {
	return sealer.Load(ctx, mgr.GetAPIReader(), mgr.GetClient(), cfg.OperatorNamespace)
}

// provideJobs runs AICR Jobs in the jobs namespace with the pinned AICR image, as the jobs
// identity (RES-1, RES-8); a bundle Job hands its pushed digest back with the operator's own
// image.
func provideJobs(cfg app.Config, mgr ctrl.Manager, seals ports.Sealer) (*jobs.Runner, error) {
	pod, err := jobPodSettings(cfg.Jobs)
	if err != nil {
		return nil, err
	}
	return jobs.New(jobs.Config{
		Namespace: cfg.JobsNamespace, OperatorNamespace: cfg.OperatorNamespace, Image: cfg.AICRImage,
		CopierImage: cfg.OperatorImage, ServiceAccount: cfg.JobsServiceAccount, Pod: pod, Sealer: seals,
	}, mgr.GetClient(), mgr.GetAPIReader())
}

// validationJobs runs deployment validation (RO-10): `aicr validate` from the pinned AICR
// image, in the validation namespace, as the validate identity the chart grants cluster-admin
// (RES-8), with AICR's check images taken from the configured registry at the pinned version.
type validationJobs struct{ *jobs.Runner }

func provideValidationJobs(cfg app.Config, mgr ctrl.Manager, seals ports.Sealer) (validationJobs, error) {
	pod, err := jobPodSettings(cfg.Jobs)
	if err != nil {
		return validationJobs{}, err
	}
	r, err := jobs.New(jobs.Config{
		Namespace: cfg.ValidationNamespace, OperatorNamespace: cfg.OperatorNamespace, Image: cfg.AICRImage,
		ServiceAccount: cfg.ValidationServiceAccount, Pod: pod, Sealer: seals,
		Env: map[string]string{jobs.ValidatorRegistryEnv: cfg.ValidatorImageRegistry, jobs.ValidatorTagEnv: "v" + cfg.AICRVersion},
	}, mgr.GetClient(), mgr.GetAPIReader())
	return validationJobs{r}, err
}

// snapshotJobs runs AICR's snapshot agent (RES-1): the pinned AICR image in agent mode, in the
// privileged discovery namespace, as the agent identity the chart pre-provisions with read
// rights only (adapters/jobs package documentation).
type snapshotJobs struct{ *jobs.Runner }

func provideSnapshotJobs(cfg app.Config, mgr ctrl.Manager, seals ports.Sealer) (snapshotJobs, error) {
	r, err := jobs.New(jobs.Config{
		Namespace: cfg.DiscoveryNamespace, OperatorNamespace: cfg.OperatorNamespace, Image: cfg.AICRImage,
		ServiceAccount: jobs.AgentServiceAccount, Agent: true, Sealer: seals,
	}, mgr.GetClient(), mgr.GetAPIReader())
	return snapshotJobs{r}, err
}

// provideResolver builds the resolver over the Jobs, the snapshot agent and the registry,
// which mirrors and pins every chart of a plan by digest (PLAN-3). The Jobs it sees finish
// are counted.
func provideResolver(cfg app.Config, mgr ctrl.Manager, runner *jobs.Runner, agent snapshotJobs, reg *oci.Registry,
	clk ports.Clock, seals ports.Sealer, admission admissionDigests, liveness *manager.Liveness) (*resolver.Reconciler, error) {
	finished := shared.NewMetrics().JobsFinished
	return resolver.New(mgr.GetClient(), mgr.GetAPIReader(), countJobs(runner, finished, shared.JobRunnerResolver),
		countJobs(agent, finished, shared.JobRunnerResolver), aicr.Reader{}, reg, clk,
		mgr.GetEventRecorderFor(resolver.FieldManager), resolver.Config{
			OperatorNamespace:  cfg.OperatorNamespace,
			JobNamespace:       cfg.JobsNamespace,
			DiscoveryNamespace: cfg.DiscoveryNamespace,
			Image:              cfg.AICRImage,
			AICRVersion:        cfg.AICRVersion,
			AllowedNamespaces:  cfg.ComponentNamespaces,
			Sealer:             seals,
			AdmissionPolicies:  shared.ChartAdmissionPolicies,
			AdmissionDigests:   admission,
			CRDDigests:         aicrv1alpha1.CRDSchemaDigests,
			Track:              liveness.Track,
		})
}

// provideWorkloads reads protected workloads straight from the API server.
func provideWorkloads(mgr ctrl.Manager) ports.WorkloadFinder {
	return workloads.New(mgr.GetAPIReader())
}

// provideRetention deletes what RET-1..3 no longer keep: superseded plans with the recipe,
// values and kept results only they referenced, and old terminal rollouts. It lists the
// operator namespace uncached (mgr.GetAPIReader()) so a plan just written is never missed, and
// counts a rollout's success only under the operator's seal.
func provideRetention(cfg app.Config, mgr ctrl.Manager, liveness *manager.Liveness, seals ports.Sealer) (*retention.Reconciler, error) {
	r, err := retention.New(mgr.GetClient(), mgr.GetAPIReader(),
		mgr.GetEventRecorderFor(retention.RecorderName), cfg.OperatorNamespace, retention.DefaultInterval,
		shared.Release{Version: cfg.AICRVersion, Image: cfg.AICRImage}, seals)
	if err != nil {
		return nil, err
	}
	r.Track = liveness.Track
	return r, nil
}
