package app_test

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/app"
)

const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// chartArgs are the flags the chart's Deployment passes with default values.
var chartArgs = []string{
	"--operator-namespace=aicr-system", "--aicr-version=1.1.0",
	"--aicr-image=ghcr.io/nvidia/aicr@" + digest, "--validator-image-registry=ghcr.io/nvidia",
	"--operator-image=ghcr.io/nvidia/aicr-operator@" + digest,
	"--engine=ArgoCD", "--engine-namespace=argocd", "--engine-project=aicr",
	"--registry-repository=oci://123456789012.dkr.ecr.us-east-1.amazonaws.com/aicr",
	"--registry-auth-provider=aws", "--registry-repo-creds-secret=aicr-registry",
	"--registry-aws-pull-role-arn=arn:aws:iam::123456789012:role/aicr-argocd-pull",
	"--component-namespaces=gpu-operator,monitoring", "--jobs-namespace=aicr-jobs",
	"--discovery-namespace=aicr-discovery", "--validation-namespace=aicr-validation",
	"--validation-enabled=true", "--jobs-service-account=aicr-jobs", "--validation-service-account=aicr-operator-validate",
	"--leader-elect=true", "--leader-election-lease-duration=15s", "--leader-election-renew-deadline=10s",
	"--leader-election-retry-period=2s", "--metrics-bind-address=:8080", "--health-probe-bind-address=:8081",
	"--log-level=info", "--step-timeout=15m", "--rollout-window=24h",
	"--admission-digests=aicr-operator-plans=" + strings.Repeat("0", 64),
	"--engine-project-digest=" + strings.Repeat("1", 64),
}

func parse(t *testing.T, args ...string) app.Config {
	t.Helper()
	var c app.Config
	fs := flag.NewFlagSet("aicr-operator", flag.ContinueOnError)
	c.BindFlags(fs)
	require.NoError(t, fs.Parse(args))
	return c
}

// parseError is the error parsing args returns (nil when they parse).
func parseError(args ...string) error {
	var c app.Config
	fs := flag.NewFlagSet("aicr-operator", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.BindFlags(fs)
	return fs.Parse(args)
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		extra   []string
		wantIs  error
		wantMsg string
	}{
		{name: "ENG-5 ArgoCD is accepted"},
		{name: "ENG-5 Flux is refused as compiled but not enabled", extra: []string{"--engine=Flux"},
			wantIs: app.ErrEngineNotEnabled, wantMsg: "the Flux adapter is compiled but not enabled in this release"},
		{name: "ENG-5 an unknown engine is refused", extra: []string{"--engine=Sveltos"},
			wantIs: app.ErrEngineUnknown, wantMsg: `engine "Sveltos": unknown deployment engine`},
		{name: "ENG-5 an empty engine is refused", extra: []string{"--engine="}, wantIs: app.ErrEngineUnknown},
		{name: "CH-1 an AICR version outside the range is refused", extra: []string{"--aicr-version=2.0.0"},
			wantIs: app.ErrInvalidConfig, wantMsg: `--aicr-version "2.0.0" is outside the supported range >=1.0.0, <2.0.0-0`},
		{name: "CH-2 an AICR image without digest is refused", extra: []string{"--aicr-image=ghcr.io/nvidia/aicr:v1.1.0"},
			wantIs: app.ErrInvalidConfig, wantMsg: "--aicr-image \"ghcr.io/nvidia/aicr:v1.1.0\" must be pinned by digest"},
		{name: "CH-2 a registry without oci:// is refused", extra: []string{"--registry-repository=ghcr.io/x"},
			wantIs: app.ErrInvalidConfig, wantMsg: "must start with oci://"},
		{name: "CH-2 the static provider needs its Secret", extra: []string{"--registry-auth-provider=static"},
			wantIs: app.ErrInvalidConfig, wantMsg: "--registry-static-secret is required with the static provider"},
		{name: "REG-1 the aws provider needs Argo CD's pull role", extra: []string{"--registry-aws-pull-role-arn="},
			wantIs: app.ErrInvalidConfig, wantMsg: `--registry-aws-pull-role-arn "" must be the ARN of the pull-only IAM role`},
		{name: "REG-1 the pull role must be an IAM role ARN", extra: []string{"--registry-aws-pull-role-arn=aicr-argocd-pull"},
			wantIs: app.ErrInvalidConfig, wantMsg: "(registry.auth.awsPullRoleArn)"},
		{name: "REG-1 a pull role in another partition is accepted",
			extra: []string{"--registry-aws-pull-role-arn=arn:aws-us-gov:iam::123456789012:role/team/aicr-argocd-pull"}},
		{name: "REG-1 the static provider needs no pull role", extra: []string{
			"--registry-auth-provider=static", "--registry-static-secret=regcred", "--registry-aws-pull-role-arn=",
			"--registry-repository=oci://registry.example.com/aicr"}},
		{name: "REG-1 the inCluster provider reads the push Secret by its default name", extra: []string{
			"--registry-auth-provider=inCluster", "--registry-repository=oci://registry.aicr-registry:5000/aicr"}},
		{name: "REG-1 the inCluster provider needs its push Secret", extra: []string{
			"--registry-auth-provider=inCluster", "--registry-push-secret="},
			wantIs: app.ErrInvalidConfig, wantMsg: "--registry-push-secret is required with the inCluster provider"},
		{name: "CH-2 an ECR repository needs the aws provider", extra: []string{
			"--registry-auth-provider=static", "--registry-static-secret=regcred",
			"--registry-repository=oci://123456789012.dkr.ecr.us-west-2.amazonaws.com/aicr"},
			wantIs: app.ErrInvalidConfig, wantMsg: "is in ECR, whose login tokens expire after 12 hours"},
		{name: "CH-2 an ECR repository in the China partition needs the aws provider", extra: []string{
			"--registry-auth-provider=inCluster", "--registry-repository=oci://123456789012.dkr.ecr.cn-north-1.amazonaws.com.cn/aicr"},
			wantIs: app.ErrInvalidConfig, wantMsg: "only --registry-auth-provider aws refreshes them"},
		{name: "CH-2 an unknown provider is refused", extra: []string{"--registry-auth-provider=gcp"},
			wantIs: app.ErrInvalidConfig, wantMsg: `--registry-auth-provider "gcp" must be aws, static or inCluster`},
		{name: "REG-1 upstream credentials for Helm and OCI prefixes are accepted", extra: []string{
			"--upstream-credentials=https://helm.ngc.nvidia.com/nvidia=ngc-helm", "--upstream-credentials=oci://nvcr.io/nvidia=ngc-oci",
			"--upstream-credentials=https://helm.ngc.nvidia.com/nvidia/team=ngc-team"}},
		{name: "REG-1 an upstream credential for plain http is refused", extra: []string{
			"--upstream-credentials=http://charts.example.com=charts"},
			wantIs: app.ErrInvalidConfig, wantMsg: `--upstream-credentials "http://charts.example.com": not an https:// or oci:// URL prefix`},
		{name: "REG-1 an upstream credential with a login in its URL is refused", extra: []string{
			"--upstream-credentials=https://user:key@charts.example.com=charts"},
			wantIs: app.ErrInvalidConfig, wantMsg: "not an https:// or oci:// URL prefix"},
		{name: "REG-1 an upstream prefix given twice is refused", extra: []string{
			"--upstream-credentials=https://helm.ngc.nvidia.com/nvidia=ngc-helm", "--upstream-credentials=https://HELM.ngc.nvidia.com/nvidia/=other"},
			wantIs: app.ErrInvalidConfig, wantMsg: "--upstream-credentials repository https://helm.ngc.nvidia.com/nvidia is given twice"},
		{name: "REG-1 an upstream credential's Secret must be a Secret name", extra: []string{
			"--upstream-credentials=oci://nvcr.io/nvidia=NGC_Key"},
			wantIs: app.ErrInvalidConfig, wantMsg: `--upstream-credentials secret "NGC_Key" of oci://nvcr.io/nvidia is not a valid Secret name`},
		{name: "REG-1 an upstream credential needs its Secret", extra: []string{"--upstream-credentials=oci://nvcr.io/nvidia="},
			wantIs: app.ErrInvalidConfig, wantMsg: `--upstream-credentials secret "" of oci://nvcr.io/nvidia`},
		{name: "CH-2 component namespaces are required", extra: []string{"--component-namespaces= , "},
			wantIs: app.ErrInvalidConfig, wantMsg: "--component-namespaces must list at least one namespace"},
		{name: "OPS-2 a mounted metrics certificate is served over HTTPS", extra: []string{"--metrics-cert-dir=/var/run/metrics-tls"}},
		{name: "OPS-2 a metrics certificate needs secure metrics", extra: []string{
			"--metrics-cert-dir=/var/run/metrics-tls", "--metrics-secure=false"},
			wantIs: app.ErrInvalidConfig, wantMsg: "--metrics-cert-dir needs --metrics-secure"},
		{name: "OPS-2 leader election timings must nest", extra: []string{"--leader-election-renew-deadline=20s"},
			wantIs: app.ErrInvalidConfig, wantMsg: "leader election needs lease duration > renew deadline > retry period > 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := parse(t, append(append([]string{}, chartArgs...), tt.extra...)...).Validate()
			if tt.wantIs == nil {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.wantIs)
			assert.Contains(t, err.Error(), tt.wantMsg)
		})
	}
}

func TestConfigValidateReportsEveryProblemAtOnce(t *testing.T) {
	t.Parallel()
	err := (app.Config{Engine: app.EngineFlux}).Validate()
	require.Error(t, err)
	assert.ErrorIs(t, err, app.ErrEngineNotEnabled)
	var joined interface{ Unwrap() []error }
	require.True(t, errors.As(err, &joined))
	assert.GreaterOrEqual(t, len(joined.Unwrap()), 10, "every missing value is its own error")
	for _, msg := range []string{"--operator-namespace is required", "--aicr-image", "--registry-repository", "--component-namespaces"} {
		assert.Contains(t, err.Error(), msg)
	}
}

func TestBindFlagsDefaultsMatchTheChart(t *testing.T) {
	t.Parallel()
	c := parse(t)
	assert.Equal(t, "argocd", c.EngineNamespace)
	assert.Equal(t, "aicr", c.EngineProject)
	assert.Equal(t, "aicr-registry", c.RegistryRepoCredsSecret)
	assert.Equal(t, "aicr-registry-push", c.RegistryPushSecret)
	assert.Empty(t, c.RegistryAWSPullRoleARN, "no default: the administrator creates the role")
	assert.Equal(t, "aicr-jobs", c.JobsServiceAccount)
	assert.True(t, c.LeaderElect)
}

func TestComponentNamespacesAreTrimmedAndDeduplicated(t *testing.T) {
	t.Parallel()
	c := parse(t, "--component-namespaces=gpu-operator, monitoring,gpu-operator,")
	assert.Equal(t, []string{"gpu-operator", "monitoring"}, c.ComponentNamespaces)
}

func TestUpstreamCredentialsAreRepeatableInOrder(t *testing.T) {
	t.Parallel()
	c := parse(t, "--upstream-credentials=https://helm.ngc.nvidia.com/nvidia=ngc-helm", "--upstream-credentials= oci://nvcr.io = ngc-oci ")
	assert.Equal(t, []app.UpstreamCredential{
		{Repository: "https://helm.ngc.nvidia.com/nvidia", Secret: "ngc-helm"},
		{Repository: "oci://nvcr.io", Secret: "ngc-oci"},
	}, c.UpstreamCredentials)
	assert.Empty(t, parse(t).UpstreamCredentials, "no default: every upstream is anonymous")

	var refused app.Config
	fs := flag.NewFlagSet("aicr-operator", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	refused.BindFlags(fs)
	err := fs.Parse([]string{"--upstream-credentials=https://helm.ngc.nvidia.com/nvidia"})
	require.ErrorContains(t, err, "must be <repository prefix>=<secret>")
}
