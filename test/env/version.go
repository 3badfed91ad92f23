package env

import (
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/util/version"
	apimachineryversion "k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
)

// K8sVersion is the oldest supported Kubernetes release and the one the suites run against
// unless K8sVersionEnv selects another.
const K8sVersion = "1.34.4"

// K8sVersionEnv names the environment variable that selects the Kubernetes release under test
// (for example 1.37.2): its binaries are looked up in the cache directory k8s-<release>, which
// `K8S_VERSION=<release> test/tools/envtest-bins.sh` builds, and Start fails when the started
// kube-apiserver reports another release.
const K8sVersionEnv = "AICR_ENVTEST_K8S"

// RequestedK8sVersion returns the Kubernetes release under test: K8sVersionEnv's value, or
// K8sVersion when it is unset, without a leading v. It fails when the value is not a semantic
// version.
func RequestedK8sVersion() (string, error) {
	requested := os.Getenv(K8sVersionEnv)
	if requested == "" {
		return K8sVersion, nil
	}
	parsed, err := version.ParseSemantic(requested)
	if err != nil {
		return "", fmt.Errorf("%s=%q is not a Kubernetes release such as 1.37.2: %w", K8sVersionEnv, requested, err)
	}
	return parsed.String(), nil
}

// serverVersion asks the started kube-apiserver for its version (the discovery /version).
func serverVersion(cfg *rest.Config) (*apimachineryversion.Info, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	info, err := dc.ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("read the kube-apiserver's version: %w", err)
	}
	return info, nil
}

// checkServerVersion fails when K8sVersionEnv selects a release and the kube-apiserver in dir
// reports another one (KUBEBUILDER_ASSETS pointing at other binaries than the selected ones).
func checkServerVersion(info *apimachineryversion.Info, dir string) error {
	if os.Getenv(K8sVersionEnv) == "" {
		return nil
	}
	requested, err := RequestedK8sVersion()
	if err != nil {
		return err
	}
	got, err := version.ParseSemantic(info.GitVersion)
	if err != nil || !got.EqualTo(version.MustParseSemantic(requested)) {
		return fmt.Errorf("the kube-apiserver in %s is %s, but %s selects %s: unset KUBEBUILDER_ASSETS or point it at "+
			"the k8s-%s cache directory (K8S_VERSION=%s test/tools/envtest-bins.sh prints it)",
			dir, info.GitVersion, K8sVersionEnv, requested, requested, requested)
	}
	return nil
}
