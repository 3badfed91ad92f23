package main

import (
	"context"
	"fmt"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/adapters/oci/awsauth"
	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/ports"
)

// provideRegistry builds the OCI registry with the credential provider of the configuration
// (REG-1). The operator's push credential never reaches Argo CD: static reads the admin's
// docker config Secret by name; inCluster reads the operator's push login from its Secret in
// the operator namespace by name and talks plain HTTP (Argo CD's repo-creds Secret holds a
// distinct pull login the operator never reads); aws keeps the operator's own ECR token for its
// pushes and refreshes a token requested as the pull-only role into Argo CD's repo-creds Secret
// at start and every 6 hours (a manager runnable, so only the leader writes it). Every refresh
// of either token is counted in the operator's metrics.
func provideRegistry(cfg app.Config, mgr ctrl.Manager, clk ports.Clock) (*oci.Registry, error) {
	opts, err := registryOptions(cfg, mgr.GetAPIReader(), func() (*oci.ECR, error) { return newECR(cfg, mgr, clk) })
	if err != nil {
		return nil, err
	}
	return oci.New(opts)
}

// registryOptions selects the operator's own credential provider and the Secrets of private
// upstream chart sources; apiReader reads Secrets of the operator namespace by name, newECR
// builds the aws provider.
func registryOptions(cfg app.Config, apiReader client.Reader, newECR func() (*oci.ECR, error)) (oci.Options, error) {
	opts := oci.Options{Registry: cfg.RegistryRepository}
	operatorSecrets := oci.KubeSecrets{Reader: apiReader, Namespace: cfg.OperatorNamespace}
	for _, c := range cfg.UpstreamCredentials {
		opts.UpstreamCredentials = append(opts.UpstreamCredentials, oci.UpstreamCredential{Repository: c.Repository, Secret: c.Secret})
	}
	opts.UpstreamLogins = operatorSecrets
	switch cfg.RegistryAuthProvider {
	case app.RegistryAuthStatic:
		opts.Credentials = oci.Static{Secrets: operatorSecrets, SecretName: cfg.RegistryStaticSecret}
	case app.RegistryAuthInCluster:
		opts.Credentials, opts.PlainHTTP = oci.InCluster{Secrets: operatorSecrets, SecretName: cfg.RegistryPushSecret}, true
	case app.RegistryAuthAWS:
		ecr, err := newECR()
		if err != nil {
			return oci.Options{}, err
		}
		opts.Credentials = ecr
	default:
		return oci.Options{}, fmt.Errorf("registry auth provider %q: %w", cfg.RegistryAuthProvider, app.ErrInvalidConfig)
	}
	return opts, nil
}

func newECR(cfg app.Config, mgr ctrl.Manager, clk ports.Clock) (*oci.ECR, error) {
	reg, err := ecrRegistry(cfg.RegistryRepository)
	if err != nil {
		return nil, err
	}
	push, pull, err := ecrTokenSources(cfg, awsauth.LoadIdentity(context.Background(), reg))
	if err != nil {
		return nil, err
	}
	m := shared.NewMetrics()
	counted := refreshMetrics{refreshes: m.CredentialRefreshes, refreshed: m.CredentialRefreshed, expiry: m.CredentialExpiry, clock: clk}
	issued := &issuedToken{}
	ecr := oci.NewECR(
		countedTokens{TokenSource: push, metrics: counted, credential: shared.CredentialPush, successes: true},
		countedTokens{TokenSource: pull, metrics: counted, credential: shared.CredentialPull, issued: issued},
		countedRepoCreds{RepoCredsWriter: oci.ArgoRepoCreds{Client: mgr.GetClient(), Namespace: cfg.EngineNamespace,
			Name: cfg.RegistryRepoCredsSecret}, metrics: counted, issued: issued},
		clk,
	)
	refresh := manager.RunnableFunc(func(ctx context.Context) error {
		return ecr.Run(ctx, time.After)
	})
	if err := mgr.Add(refresh); err != nil {
		return nil, fmt.Errorf("add the ECR token refresher: %w", err)
	}
	return ecr, nil
}

// ecrTokenSources returns the aws provider's two token sources: push requests the operator's
// own token with identity (the SDK's default credential chain: EKS Pod Identity or IRSA); pull
// requests Argo CD's token with the credentials of the pull role identity assumes. A pull role
// that is the operator's own IRSA role is refused: Argo CD would get a push token again.
func ecrTokenSources(cfg app.Config, identity awsauth.Identity) (push, pull oci.TokenSource, err error) {
	if cfg.RegistryAWSPullRoleARN == "" {
		return nil, nil, fmt.Errorf("registry auth provider aws needs --registry-aws-pull-role-arn: %w", app.ErrInvalidConfig)
	}
	if identity.WebIdentityRole == cfg.RegistryAWSPullRoleARN {
		return nil, nil, fmt.Errorf("--registry-aws-pull-role-arn %s is the operator's own role; Argo CD needs a pull-only role: %w",
			cfg.RegistryAWSPullRoleARN, app.ErrInvalidConfig)
	}
	pullRole, err := identity.AssumeRole(cfg.RegistryAWSPullRoleARN)
	if err != nil {
		return nil, nil, err
	}
	return awsauth.NewECRAPI(identity), awsauth.NewECRAPI(pullRole), nil
}

// ecrRegistry reads the ECR registry of the repository: <account>.dkr.ecr[-fips].<region>.<domain>
// of the commercial, China, GovCloud and ISO partitions.
func ecrRegistry(repository string) (awsauth.Registry, error) {
	reg, err := awsauth.ParseRegistry(repository)
	if err != nil {
		return awsauth.Registry{}, fmt.Errorf("registry %q is not an ECR registry (<account>.dkr.ecr.<region>.amazonaws.com): %w: %w",
			repository, app.ErrInvalidConfig, err)
	}
	return reg, nil
}
