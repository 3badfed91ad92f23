package env

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	apimachineryversion "k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// ErrNoBinaries is returned when neither KUBEBUILDER_ASSETS nor the cache holds the binaries.
var ErrNoBinaries = errors.New("kube-apiserver and etcd not found: run `make envtest` " +
	"(builds them from the Go module proxy into the cache) or set KUBEBUILDER_ASSETS")

// Options selects what the control plane starts with.
type Options struct {
	// CRDs are installed before Start returns.
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// CRDDirectoryPaths are directories or files of CRD manifests installed before Start returns.
	CRDDirectoryPaths []string
	// AuditLog, when set, is the file the API server writes an audit event of every write to
	// (JSON lines, read with ReadAudit); its directory must exist.
	AuditLog string
	// AuditBodies are the resources whose writes the audit log records with their request and
	// response bodies, e.g. to tell a write that changed an object (a new resourceVersion) from
	// one that did not.
	AuditBodies []AuditResource
}

// Env is a running control plane.
type Env struct {
	// Config authenticates as a cluster administrator (system:masters).
	Config *rest.Config
	// ServerVersion is the version the started kube-apiserver reports (its discovery /version).
	ServerVersion *apimachineryversion.Info
	environment   *envtest.Environment
}

// CacheDir is the directory the test tools build their binaries into, outside the repository:
// $XDG_CACHE_HOME/aicr-operator, or ~/.cache/aicr-operator.
func CacheDir() (string, error) {
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("locate cache directory: %w", err)
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "aicr-operator"), nil
}

// AssetsDir returns the directory holding kube-apiserver and etcd: KUBEBUILDER_ASSETS, else
// AICR_ENVTEST_CACHE, else the cache directory of the release under test (RequestedK8sVersion).
func AssetsDir() (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir, nil
	}
	release, err := RequestedK8sVersion()
	if err != nil {
		return "", err
	}
	cache := os.Getenv("AICR_ENVTEST_CACHE")
	if cache == "" {
		base, err := CacheDir()
		if err != nil {
			return "", err
		}
		cache = filepath.Join(base, "k8s-"+release)
	}
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(cache, bin)); err != nil {
			return "", fmt.Errorf("%w (Kubernetes %s: %s lacks %s; K8S_VERSION=%s test/tools/envtest-bins.sh builds it)",
				ErrNoBinaries, release, cache, bin, release)
		}
	}
	return cache, nil
}

// Start starts etcd and kube-apiserver (RBAC authorization, admission policies enabled)
// and installs the given CRDs. In a test binary it logs the started kube-apiserver's version
// to standard error (shown by go test -v and for a failed package).
func Start(opts Options) (*Env, error) {
	dir, err := AssetsDir()
	if err != nil {
		return nil, err
	}
	environment := &envtest.Environment{
		BinaryAssetsDirectory: dir,
		CRDs:                  opts.CRDs,
		CRDDirectoryPaths:     opts.CRDDirectoryPaths,
		ErrorIfCRDPathMissing: true,
		// A loaded CI machine can take more than the default 20 s to drain the API
		// server's watches; after this it is killed and Stop reports the timeout.
		ControlPlaneStopTimeout: time.Minute,
	}
	if opts.AuditLog != "" {
		if err = configureAudit(environment, opts.AuditLog, opts.AuditBodies); err != nil {
			return nil, err
		}
	}
	cfg, err := environment.Start()
	if err != nil {
		return nil, fmt.Errorf("start control plane: %w", err)
	}
	cp := &Env{Config: cfg, environment: environment}
	if cp.ServerVersion, err = serverVersion(cfg); err == nil {
		err = checkServerVersion(cp.ServerVersion, dir)
	}
	if err != nil {
		return nil, errors.Join(err, cp.Stop())
	}
	if testing.Testing() {
		fmt.Fprintf(os.Stderr, "test/env: kube-apiserver %s (binaries in %s)\n", cp.ServerVersion.GitVersion, dir)
	}
	return cp, nil
}

// Impersonate returns a copy of the admin config that acts as user with groups, so requests
// go through RBAC and admission policies as that user would.
func (e *Env) Impersonate(user string, groups ...string) *rest.Config {
	cfg := rest.CopyConfig(e.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: append([]string{"system:authenticated"}, groups...)}
	return cfg
}

// ClientAs returns a client of scheme acting as user with groups (Impersonate).
func (e *Env) ClientAs(scheme *runtime.Scheme, user string, groups ...string) (client.Client, error) {
	return client.New(e.Impersonate(user, groups...), client.Options{Scheme: scheme})
}

// Stop stops the control plane.
func (e *Env) Stop() error {
	return e.environment.Stop()
}

// KubeConfig provisions a client-certificate user with groups (system:masters for an
// administrator) and returns a kubeconfig for it, for processes such as the operator binary
// or kubectl aicr that run against the control plane.
func (e *Env) KubeConfig(user string, groups ...string) ([]byte, error) {
	u, err := e.environment.AddUser(envtest.User{Name: user, Groups: groups}, nil)
	if err != nil {
		return nil, fmt.Errorf("add user %s: %w", user, err)
	}
	cfg, err := u.KubeConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig of %s: %w", user, err)
	}
	return cfg, nil
}

// WriteKubeConfig writes KubeConfig(user, groups...) to path, readable only by its owner.
func (e *Env) WriteKubeConfig(path, user string, groups ...string) error {
	raw, err := e.KubeConfig(user, groups...)
	if err != nil {
		return err
	}
	return os.WriteFile(path, raw, 0o600)
}
