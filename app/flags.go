package app

import (
	"flag"
	"slices"
	"strings"
	"time"

	"github.com/NVIDIA/aicr/domain"
)

// BindFlags registers the operator's flags on fs, exactly as the chart's Deployment passes
// them, with the chart's defaults.
func (c *Config) BindFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.OperatorNamespace, "operator-namespace", "", "namespace of the operator (plans, leases, events)")
	fs.StringVar(&c.AICRVersion, "aicr-version", "", "pinned AICR release the AICR image runs")
	fs.StringVar(&c.AICRImage, "aicr-image", "", "AICR image, pinned by digest")
	fs.StringVar(&c.ValidatorImageRegistry, "validator-image-registry", "ghcr.io/nvidia",
		"registry prefix of the check images aicr validate starts (<registry>/aicr-validators/<phase>:v<aicr-version>)")
	fs.StringVar(&c.OperatorImage, "operator-image", "",
		"the operator's own image, pinned by digest: bundle Jobs run it to hand AICR's pushed digest back")
	fs.Func("engine", "deployment engine (only ArgoCD is enabled)", func(s string) error {
		c.Engine = EngineKind(s)
		return nil
	})
	fs.StringVar(&c.EngineNamespace, "engine-namespace", "argocd", "namespace of the engine's objects")
	fs.StringVar(&c.EngineProject, "engine-project", "aicr", "Argo CD AppProject of the operator's Applications")
	fs.StringVar(&c.RegistryRepository, "registry-repository", "", "OCI registry repository for charts, bundles and evidence")
	fs.Func("registry-auth-provider", "registry credentials provider: aws, static or inCluster", func(s string) error {
		c.RegistryAuthProvider = RegistryAuthProvider(s)
		return nil
	})
	fs.StringVar(&c.RegistryRepoCredsSecret, "registry-repo-creds-secret", "aicr-registry", "Argo CD repo-creds Secret the operator refreshes")
	fs.StringVar(&c.RegistryStaticSecret, "registry-static-secret", "", "docker config Secret of the static provider")
	fs.StringVar(&c.RegistryPushSecret, "registry-push-secret", "aicr-registry-push",
		"inCluster only: Secret in the operator namespace with the operator's read-write login (keys username, password)")
	fs.StringVar(&c.RegistryAWSPullRoleARN, "registry-aws-pull-role-arn", "",
		"aws only: pull-only IAM role the operator assumes to request Argo CD's ECR token")
	fs.Func("component-namespaces", "comma-separated namespaces the recipe may deploy into", func(s string) error {
		c.ComponentNamespaces = splitList(s)
		return nil
	})
	fs.StringVar(&c.JobsNamespace, "jobs-namespace", "", "namespace of the AICR Jobs")
	fs.StringVar(&c.DiscoveryNamespace, "discovery-namespace", "", "namespace of the snapshot Jobs")
	fs.StringVar(&c.ValidationNamespace, "validation-namespace", "", "namespace of the validation Jobs")
	fs.BoolVar(&c.ValidationEnabled, "validation-enabled", false, "whether AICR deployment validation is installed")
	fs.StringVar(&c.JobsServiceAccount, "jobs-service-account", "aicr-jobs", "identity of the AICR Jobs")
	fs.StringVar(&c.ValidationServiceAccount, "validation-service-account", "", "identity of the validation Jobs")
	c.Jobs.bindFlags(fs)
	fs.BoolVar(&c.LeaderElect, "leader-elect", true, "elect a leader with a Lease in the operator namespace")
	fs.DurationVar(&c.LeaseDuration, "leader-election-lease-duration", 15*time.Second, "leader election lease duration")
	fs.DurationVar(&c.RenewDeadline, "leader-election-renew-deadline", 10*time.Second, "leader election renew deadline")
	fs.DurationVar(&c.RetryPeriod, "leader-election-retry-period", 2*time.Second, "leader election retry period")
	fs.StringVar(&c.MetricsBindAddress, "metrics-bind-address", ":8080", "address of the Prometheus metrics endpoint")
	fs.BoolVar(&c.MetricsSecure, "metrics-secure", true,
		"serve metrics over HTTPS to callers the API server authenticates and authorizes for get on /metrics; false serves plain HTTP to anyone")
	fs.StringVar(&c.MetricsCertDir, "metrics-cert-dir", "",
		"directory with the metrics endpoint's certificate (tls.crt, tls.key), reloaded when it changes; empty: self-signed")
	fs.StringVar(&c.HealthProbeBindAddress, "health-probe-bind-address", ":8081", "address of the health probes")
	fs.StringVar(&c.LogLevel, "log-level", "info", "log level: debug, info or error")
	fs.DurationVar(&c.StepTimeout, "step-timeout", domain.DefaultActionTimeout,
		"how long one rollout step may take to become ready before the rollout fails")
	fs.DurationVar(&c.ValidationTimeout, "validation-timeout", domain.DefaultValidationTimeout,
		"how long one deployment validation run may take before the rollout fails")
	fs.DurationVar(&c.RolloutWindow, "rollout-window", domain.DefaultRolloutWindow,
		"time from a rollout's creation to its deadline; must exceed every step timeout")
	fs.Func("component-step-timeout",
		"step timeout of one component instead of --step-timeout, as <component>=<duration> "+
			"(repeatable or comma-separated, for example gpu-operator=2h)", c.addComponentStepTimeouts)
	fs.Func("admission-digests",
		"the content digest of each admission policy and its binding as the chart renders them, as <policy>=<sha256 hex> "+
			"(comma-separated; the chart sets it): a live policy or binding that differs stalls every rollout", c.addAdmissionDigests)
	fs.Func("engine-project-digest",
		"the content digest of the engine project's spec as the chart renders it (sha256 hex; the chart sets it): "+
			"a live AppProject that differs stalls every rollout", c.setEngineProjectDigest)
	fs.Func("upstream-credentials",
		"the kubernetes.io/basic-auth Secret of the operator namespace whose login goes to the upstream chart sources "+
			"under an https:// or oci:// prefix, as <prefix>=<secret> (repeatable; the longest prefix wins)", c.addUpstreamCredential)
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" && !slices.Contains(out, part) {
			out = append(out, part)
		}
	}
	return out
}
