package app

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/NVIDIA/aicr/domain"
)

// EngineKind names a deployment engine.
type EngineKind string

const (
	// EngineArgoCD is the only engine enabled in this release.
	EngineArgoCD EngineKind = "ArgoCD"
	// EngineFlux is compiled in (adapters/flux) but not enabled in this release.
	EngineFlux EngineKind = "Flux"
)

// RegistryAuthProvider names how the operator and Argo CD authenticate to the registry.
type RegistryAuthProvider string

const (
	// RegistryAuthAWS uses ECR tokens from the operator's AWS identity, refreshed every 6 hours.
	RegistryAuthAWS RegistryAuthProvider = "aws"
	// RegistryAuthStatic uses an admin-provided docker config Secret read by name.
	RegistryAuthStatic RegistryAuthProvider = "static"
	// RegistryAuthInCluster uses an in-cluster registry over plain HTTP: the operator pushes with
	// the login of its push Secret, Argo CD pulls with a separate pull-only login.
	RegistryAuthInCluster RegistryAuthProvider = "inCluster"
)

var (
	// ErrEngineNotEnabled reports an engine that is compiled in but not enabled in this release.
	ErrEngineNotEnabled = errors.New("the Flux adapter is compiled but not enabled in this release: set engine.type to ArgoCD")
	// ErrEngineUnknown reports an engine the operator does not know.
	ErrEngineUnknown = errors.New("unknown deployment engine: the only enabled engine is ArgoCD")
	// ErrInvalidConfig wraps every configuration problem.
	ErrInvalidConfig = errors.New("invalid configuration")
)

var pinnedImage = regexp.MustCompile(`^[^@\s]+@sha256:[a-f0-9]{64}$`)

// imageRegistry is a registry prefix as the chart's aicr.validators.registry: a host, an
// optional port and path, no trailing slash.
var imageRegistry = regexp.MustCompile(`^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]+)?(/[a-z0-9]([a-z0-9._-]*[a-z0-9])?)*$`)

// iamRoleARN matches an IAM role ARN in any partition (aws, aws-cn, aws-us-gov).
var iamRoleARN = regexp.MustCompile(`^arn:aws(-[a-z]+)*:iam::[0-9]{12}:role/[\w+=,.@/-]{1,512}$`)

// ecrRepository matches an oci:// repository in Amazon ECR: <account>.dkr.ecr[-fips].<region>.<domain>
// of any partition.
var ecrRepository = regexp.MustCompile(`^oci://[0-9]{12}\.dkr\.ecr(-fips)?\.[a-z0-9-]+\.[a-z0-9.-]+(/|$)`)

// Config is the operator's installation configuration, passed by the chart's Deployment as
// flags (see BindFlags; the chart README lists them). ClusterRuntime holds only runtime intent
// and policy (PLAT-9).
type Config struct {
	OperatorNamespace        string
	AICRVersion              string
	AICRImage                string
	ValidatorImageRegistry   string
	OperatorImage            string
	Engine                   EngineKind
	EngineNamespace          string
	EngineProject            string
	RegistryRepository       string
	RegistryAuthProvider     RegistryAuthProvider
	RegistryRepoCredsSecret  string
	RegistryStaticSecret     string
	RegistryPushSecret       string
	RegistryAWSPullRoleARN   string
	ComponentNamespaces      []string
	JobsNamespace            string
	DiscoveryNamespace       string
	ValidationNamespace      string
	ValidationEnabled        bool
	JobsServiceAccount       string
	ValidationServiceAccount string
	Jobs                     JobPodSettings
	LeaderElect              bool
	LeaseDuration            time.Duration
	RenewDeadline            time.Duration
	RetryPeriod              time.Duration
	MetricsBindAddress       string
	MetricsSecure            bool
	// MetricsCertDir holds the metrics endpoint's serving certificate (tls.crt, tls.key), reloaded
	// when it changes; empty: a self-signed certificate generated at start.
	MetricsCertDir         string
	HealthProbeBindAddress string
	LogLevel               string
	// StepTimeout bounds one rollout step (--step-timeout).
	StepTimeout time.Duration
	// AdmissionDigests are the content digests of the chart's admission policies and their
	// bindings by policy name (--admission-digests).
	AdmissionDigests map[string]string
	// EngineProjectDigest is the content digest of the engine project's spec as the chart
	// renders it (--engine-project-digest).
	EngineProjectDigest string
	// ComponentStepTimeouts bound the steps of the named components instead of StepTimeout
	// (--component-step-timeout).
	ComponentStepTimeouts map[string]time.Duration
	// RolloutWindow is the time from a rollout's creation to its deadline (--rollout-window).
	RolloutWindow time.Duration
	// ValidationTimeout bounds one deployment validation run (--validation-timeout).
	ValidationTimeout time.Duration
	// UpstreamCredentials name the Secrets of private upstream chart sources
	// (--upstream-credentials); every other upstream is read anonymously.
	UpstreamCredentials []UpstreamCredential
}

// Validate reports every configuration problem at once, each wrapped with ErrInvalidConfig
// (and ErrEngineNotEnabled or ErrEngineUnknown for the engine).
func (c Config) Validate() error {
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfig}, args...)...))
	}
	switch c.Engine {
	case EngineArgoCD:
	case EngineFlux:
		errs = append(errs, fmt.Errorf("%w: engine %q: %w", ErrInvalidConfig, c.Engine, ErrEngineNotEnabled))
	default:
		errs = append(errs, fmt.Errorf("%w: engine %q: %w", ErrInvalidConfig, c.Engine, ErrEngineUnknown))
	}
	for flag, v := range map[string]string{
		"--operator-namespace": c.OperatorNamespace, "--engine-namespace": c.EngineNamespace,
		"--engine-project": c.EngineProject, "--jobs-namespace": c.JobsNamespace,
		"--discovery-namespace": c.DiscoveryNamespace, "--validation-namespace": c.ValidationNamespace,
		"--jobs-service-account": c.JobsServiceAccount, "--registry-repo-creds-secret": c.RegistryRepoCredsSecret,
	} {
		if v == "" {
			add("%s is required", flag)
		}
	}
	if len(c.AdmissionDigests) == 0 {
		add("--admission-digests is required: the chart sets the digest of each admission policy it renders")
	}
	if c.EngineProjectDigest == "" {
		add("--engine-project-digest is required: the chart sets the digest of the AppProject it renders")
	}
	if !domain.AICRVersionSupported(c.AICRVersion) {
		add("--aicr-version %q is outside the supported range %s", c.AICRVersion, domain.SupportedAICRRange)
	}
	for flag, image := range map[string]string{"--aicr-image": c.AICRImage, "--operator-image": c.OperatorImage} {
		if !pinnedImage.MatchString(image) {
			add("%s %q must be pinned by digest (<repository>@sha256:<64 hex>)", flag, image)
		}
	}
	errs = append(errs, c.validateRegistry()...)
	errs = append(errs, c.validateRollout()...)
	errs = append(errs, c.validateUpstream()...)
	errs = append(errs, c.Jobs.validate()...)
	if len(c.ComponentNamespaces) == 0 {
		add("--component-namespaces must list at least one namespace")
	}
	if c.MetricsCertDir != "" && !c.MetricsSecure {
		add("--metrics-cert-dir needs --metrics-secure: plain HTTP serves no certificate")
	}
	if c.ValidationEnabled && c.ValidationServiceAccount == "" {
		add("--validation-service-account is required when validation is enabled")
	}
	if !imageRegistry.MatchString(c.ValidatorImageRegistry) {
		add("--validator-image-registry %q is not a registry prefix (<host>[:port][/path], no trailing slash)", c.ValidatorImageRegistry)
	}
	if c.LeaderElect && (c.RetryPeriod <= 0 || c.RenewDeadline <= c.RetryPeriod || c.LeaseDuration <= c.RenewDeadline) {
		add("leader election needs lease duration > renew deadline > retry period > 0, got %s, %s, %s",
			c.LeaseDuration, c.RenewDeadline, c.RetryPeriod)
	}
	return errors.Join(sortedErrors(errs)...)
}

func (c Config) validateRegistry() []error {
	var errs []error
	if !strings.HasPrefix(c.RegistryRepository, "oci://") && !strings.HasPrefix(c.RegistryRepository, "http://") {
		errs = append(errs, fmt.Errorf("%w: --registry-repository %q must start with oci:// (or http:// for an in-cluster registry)",
			ErrInvalidConfig, c.RegistryRepository))
	}
	if c.RegistryAuthProvider != RegistryAuthAWS && ecrRepository.MatchString(c.RegistryRepository) {
		errs = append(errs, fmt.Errorf("%w: --registry-repository %q is in ECR, whose login tokens expire after 12 hours: "+
			"only --registry-auth-provider aws refreshes them (registry.auth.provider)", ErrInvalidConfig, c.RegistryRepository))
	}
	switch c.RegistryAuthProvider {
	case RegistryAuthAWS:
		if !iamRoleARN.MatchString(c.RegistryAWSPullRoleARN) {
			errs = append(errs, fmt.Errorf("%w: --registry-aws-pull-role-arn %q must be the ARN of the pull-only IAM role "+
				"(arn:aws:iam::<account>:role/<name>) the aws provider assumes for Argo CD's ECR token (registry.auth.awsPullRoleArn)",
				ErrInvalidConfig, c.RegistryAWSPullRoleARN))
		}
	case RegistryAuthInCluster:
		if c.RegistryPushSecret == "" {
			errs = append(errs, fmt.Errorf("%w: --registry-push-secret is required with the inCluster provider", ErrInvalidConfig))
		}
	case RegistryAuthStatic:
		if c.RegistryStaticSecret == "" {
			errs = append(errs, fmt.Errorf("%w: --registry-static-secret is required with the static provider", ErrInvalidConfig))
		}
	default:
		errs = append(errs, fmt.Errorf("%w: --registry-auth-provider %q must be aws, static or inCluster",
			ErrInvalidConfig, c.RegistryAuthProvider))
	}
	return errs
}
