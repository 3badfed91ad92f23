package cli

import (
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"

	"github.com/NVIDIA/aicr/ports"
)

// DefaultTimeout is the deadline every command's API calls share (CLI-1).
const DefaultTimeout = 30 * time.Second

// Options is shared by every subcommand: the IO streams, the standard kubectl flags, the
// deadline of a command's API calls and the clock. Tests override Timeout and Now.
type Options struct {
	genericiooptions.IOStreams
	// ConfigFlags are the standard kubectl flags (--kubeconfig, --context, --as, -n, ...).
	ConfigFlags *genericclioptions.ConfigFlags
	// Timeout bounds all API calls of one command together.
	Timeout time.Duration
	// Now is the clock; cmd/kubectl-aicr passes the real one.
	Now func() time.Time
	// Clients, when set, replaces the clients built from ConfigFlags (tests pass fakes).
	Clients func() (Clients, error)
	// Version is the plugin's release, printed by kubectl aicr version; cmd/kubectl-aicr sets
	// it from its -ldflags version.
	Version string
	// Bundles reads a bundle directory for kubectl aicr plan; cmd/kubectl-aicr passes AICR's
	// bundle reader.
	Bundles ports.BundleReader
	// Engine builds, from the command's REST config and what the plugin knows of the engine
	// (EngineConfig), the deployment engine describe and reproduce ask for each release;
	// cmd/kubectl-aicr passes Argo CD's. Without it describe shows no engine columns and
	// reproduce does not compare the Applications with the plan.
	Engine func(cfg *rest.Config, engine EngineConfig) (EngineReader, error)
	// flags holds the command flags every command accepts.
	flags commandFlags
}

// NewOptions returns Options writing to streams, with the 30-second deadline and no clock.
func NewOptions(streams genericiooptions.IOStreams) *Options {
	return &Options{IOStreams: streams, ConfigFlags: newConfigFlags(), Timeout: DefaultTimeout}
}

// newConfigFlags keeps the kubectl flags that select a cluster and an identity; the
// request timeout is replaced by the shared deadline (--request-timeout, addFlags), and
// nothing is discovered or cached.
func newConfigFlags() *genericclioptions.ConfigFlags {
	f := genericclioptions.NewConfigFlags(false)
	f.Timeout = nil
	f.CacheDir = nil
	f.DisableCompression = nil
	return f
}
