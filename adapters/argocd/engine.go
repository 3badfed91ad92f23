package argocd

import (
	"strings"

	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/kube/wellknown"
	"github.com/NVIDIA/aicr/ports"
)

// Defaults of Config (chart values engine.namespace and engine.project, ENG-1).
const (
	// DefaultNamespace is the namespace Applications are written to.
	DefaultNamespace = "argocd"
	// DefaultProject is the AppProject every Application belongs to.
	DefaultProject = "aicr"
	// InClusterServer is the destination server of every Application: the
	// cluster Argo CD runs in.
	InClusterServer = "https://kubernetes.default.svc"
)

// AnnotationRollout names the rollout that last wrote an Application.
const AnnotationRollout = wellknown.Prefix + "rollout"

// Config configures the engine.
type Config struct {
	// Namespace is the engine namespace holding the Applications (default DefaultNamespace).
	Namespace string
	// Project is the AppProject of every Application (default DefaultProject).
	Project string
	// Registry is the runtime registry repository (for example
	// "registry.example.com/aicr"): upstream charts are read from
	// Registry + "/charts" and local (wrapper) charts from Registry + "/wrappers".
	Registry string
	// Reader reads what the engine's client may not show: Unplanned lists every Application
	// of the engine namespace through it, not only those a cache limited to the operator's
	// label holds (nil: the engine's client).
	Reader client.Reader
}

// Engine is the Argo CD DeploymentEngine. It is safe for concurrent use.
type Engine struct {
	c         client.Client
	discovery discovery.DiscoveryInterface
	cfg       Config
	// revisions spares observing an unchanged Application its values' encoding again.
	revisions *revisionMemo
}

var _ ports.DeploymentEngine = (*Engine)(nil)

// NewEngine returns an engine writing Applications through c, whose scheme
// must include AddToScheme. dc answers whether the Application kind is served
// (Check); it may be nil, then Check relies on the API's no-match errors.
// The Argo CD CRDs need not exist yet: every method reports
// ports.ErrEngineMissing until they do, and works once they appear.
func NewEngine(c client.Client, dc discovery.DiscoveryInterface, cfg Config) *Engine {
	if cfg.Namespace == "" {
		cfg.Namespace = DefaultNamespace
	}
	if cfg.Project == "" {
		cfg.Project = DefaultProject
	}
	cfg.Registry = strings.TrimSuffix(cfg.Registry, "/")
	if cfg.Reader == nil {
		cfg.Reader = c
	}
	return &Engine{c: c, discovery: dc, cfg: cfg, revisions: &revisionMemo{}}
}

// Namespace returns the engine namespace the Applications live in.
func (e *Engine) Namespace() string { return e.cfg.Namespace }

// ApplicationName returns the name of the Application of ref:
// "<namespace>.<id>". A namespace never contains a dot, so two releases never
// share a name, and the name stays readable in Argo CD's UI.
func ApplicationName(ref ports.ReleaseRef) string {
	return ref.Namespace + "." + ref.ID
}

func (e *Engine) key(ref ports.ReleaseRef) client.ObjectKey {
	return client.ObjectKey{Namespace: e.cfg.Namespace, Name: ApplicationName(ref)}
}
