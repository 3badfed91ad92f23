package chart_test

import (
	"fmt"
	"os"
	"path/filepath"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// releaseName is the Helm release every test installs.
const releaseName = "aicr-operator"

// helmClient runs Helm actions (install, upgrade, uninstall) against one control plane as
// its administrator, as the helm CLI would with a kubeconfig.
type helmClient struct {
	cfg *action.Configuration
}

// newHelmClient writes a kubeconfig for cfg into dir and initialises Helm with it.
func newHelmClient(cfg *rest.Config, dir string) (*helmClient, error) {
	kubeconfig := clientcmdapi.NewConfig()
	kubeconfig.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kubeconfig.AuthInfos["admin"] = &clientcmdapi.AuthInfo{
		ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken,
	}
	kubeconfig.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "admin", Namespace: releaseNamespace}
	kubeconfig.CurrentContext = "envtest"
	path := filepath.Join(dir, "kubeconfig")
	if err := clientcmd.WriteToFile(*kubeconfig, path); err != nil {
		return nil, fmt.Errorf("write kubeconfig: %w", err)
	}
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig = &path
	namespace := releaseNamespace
	flags.Namespace = &namespace
	ac := new(action.Configuration)
	if err := ac.Init(flags, releaseNamespace, "secret", func(string, ...any) {}); err != nil {
		return nil, fmt.Errorf("initialise helm: %w", err)
	}
	return &helmClient{cfg: ac}, nil
}

// install runs helm install of the chart with values into releaseNamespace.
func (h *helmClient) install(values map[string]any) error {
	chrt, err := loader.Load(chartDir())
	if err != nil {
		return fmt.Errorf("load chart: %w", err)
	}
	install := action.NewInstall(h.cfg)
	install.ReleaseName = releaseName
	install.Namespace = releaseNamespace
	if _, err := install.Run(chrt, values); err != nil {
		return fmt.Errorf("helm install: %w", err)
	}
	return nil
}

// upgrade runs helm upgrade of the release with values.
func (h *helmClient) upgrade(values map[string]any) error {
	chrt, err := loader.Load(chartDir())
	if err != nil {
		return fmt.Errorf("load chart: %w", err)
	}
	upgrade := action.NewUpgrade(h.cfg)
	upgrade.Namespace = releaseNamespace
	if _, err := upgrade.Run(releaseName, chrt, values); err != nil {
		return fmt.Errorf("helm upgrade: %w", err)
	}
	return nil
}

// uninstall runs helm uninstall of the release.
func (h *helmClient) uninstall() error {
	if _, err := action.NewUninstall(h.cfg).Run(releaseName); err != nil {
		return fmt.Errorf("helm uninstall: %w", err)
	}
	return nil
}

// tempDir makes a directory the caller removes.
func tempDir() (string, func(), error) {
	dir, err := os.MkdirTemp("", "aicr-chart-test-")
	if err != nil {
		return "", nil, fmt.Errorf("make temp dir: %w", err)
	}
	return dir, func() { _ = os.RemoveAll(dir) }, nil
}
