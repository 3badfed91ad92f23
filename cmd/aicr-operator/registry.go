package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/nvidia/aicr-operator/adapters/oci"
	"github.com/nvidia/aicr-operator/app"
	"github.com/nvidia/aicr-operator/ports"
)

// provideRegistry builds the OCI registry with the credential provider of the configuration
// (REG-1): static reads the admin's docker config Secret by name, inCluster reads the
// generated login from the repo-creds Secret and talks plain HTTP, aws refreshes an ECR token
// into Argo CD's repo-creds Secret at start and every 6 hours (a manager runnable, so only
// the leader writes it).
func provideRegistry(cfg app.Config, mgr ctrl.Manager, clk ports.Clock) (*oci.Registry, error) {
	opts := oci.Options{Registry: cfg.RegistryRepository}
	engineSecrets := oci.KubeSecrets{Reader: mgr.GetAPIReader(), Namespace: cfg.EngineNamespace}
	switch cfg.RegistryAuthProvider {
	case app.RegistryAuthStatic:
		opts.Credentials = oci.Static{
			Secrets:    oci.KubeSecrets{Reader: mgr.GetAPIReader(), Namespace: cfg.OperatorNamespace},
			SecretName: cfg.RegistryStaticSecret,
		}
	case app.RegistryAuthInCluster:
		opts.Credentials, opts.PlainHTTP = oci.InCluster{Secrets: engineSecrets, SecretName: cfg.RegistryRepoCredsSecret}, true
	case app.RegistryAuthAWS:
		ecr, err := newECR(cfg, mgr, clk)
		if err != nil {
			return nil, err
		}
		opts.Credentials = ecr
	default:
		return nil, fmt.Errorf("registry auth provider %q: %w", cfg.RegistryAuthProvider, app.ErrInvalidConfig)
	}
	return oci.New(opts)
}

func newECR(cfg app.Config, mgr ctrl.Manager, clk ports.Clock) (*oci.ECR, error) {
	region, err := ecrRegion(cfg.RegistryRepository)
	if err != nil {
		return nil, err
	}
	source := awsIdentity(region)
	ecr := oci.NewECR(
		oci.ECRAPI{HTTP: http.DefaultClient, Region: region, Credentials: source, Clock: clk},
		oci.ArgoRepoCreds{Client: mgr.GetClient(), Namespace: cfg.EngineNamespace, Name: cfg.RegistryRepoCredsSecret},
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

// awsIdentity prefers EKS Pod Identity and falls back to IRSA, as the AWS SDKs do.
func awsIdentity(region string) oci.AWSCredentialSource {
	pod := oci.PodIdentityFromEnv(http.DefaultClient)
	if pod.URI != "" {
		return pod
	}
	return oci.IRSAFromEnv(http.DefaultClient, region)
}

// ecrRegion reads the region of an ECR registry host: <account>.dkr.ecr.<region>.amazonaws.com.
func ecrRegion(repository string) (string, error) {
	host, _, _ := strings.Cut(strings.TrimPrefix(repository, "oci://"), "/")
	parts := strings.Split(host, ".")
	if len(parts) < 6 || parts[1] != "dkr" || parts[2] != "ecr" {
		return "", fmt.Errorf("registry %q is not an ECR registry (<account>.dkr.ecr.<region>.amazonaws.com): %w",
			repository, app.ErrInvalidConfig)
	}
	return parts[3], nil
}
