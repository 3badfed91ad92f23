package cli

import "k8s.io/cli-runtime/pkg/genericiooptions"

// Options is shared by every subcommand: the IO streams now, and later the
// Kubernetes client flags and a clock that tests can override.
type Options struct {
	genericiooptions.IOStreams
}

// NewOptions returns Options writing to streams.
func NewOptions(streams genericiooptions.IOStreams) *Options {
	return &Options{IOStreams: streams}
}
