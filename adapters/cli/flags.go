package cli

import (
	"time"

	"github.com/spf13/pflag"
)

// OperatorNamespace is the namespace -n defaults to: where the operator keeps plans,
// recipes and upgrade-check reports.
const OperatorNamespace = "aicr-system"

// DefaultReproduceDir is where reproduce writes recipe.json unless --dir says otherwise.
const DefaultReproduceDir = "aicr-reproduce"

// MaxReasonLength bounds --reason, as the API bounds spec.approval.reason (CLI-3).
const MaxReasonLength = 1024

// commandFlags are the flags of the API commands. Every command accepts every flag (CLI-1);
// a command ignores the ones it does not use.
type commandFlags struct {
	expires time.Duration
	// expiresGiven records that --expires was on the command line, so a zero value is refused
	// instead of read as "until the deadline".
	expiresGiven bool
	reason       string
	dir          string
	bundle       string
	from         string
	output       string
}

// addFlags registers the kubectl flags and the command flags on fs.
func (o *Options) addFlags(fs *pflag.FlagSet) {
	o.ConfigFlags.AddFlags(fs)
	if f := fs.Lookup("namespace"); f != nil {
		f.Usage = "the operator namespace, where plans, recipes and upgrade-check reports live (default aicr-system)"
	}
	fs.DurationVar(&o.flags.expires, "expires", 0,
		"approve: how long the approval lasts (e.g. 2h); without it, until the rollout's deadline")
	fs.StringVar(&o.flags.reason, "reason", "",
		"approve, revoke: why (required, at most 1024 characters)")
	fs.StringVar(&o.flags.dir, "dir", DefaultReproduceDir,
		"reproduce: directory to write recipe.json to")
	fs.StringVar(&o.flags.bundle, "bundle", "",
		"plan: directory of the AICR helm bundle (aicr bundle --deployer helm)")
	fs.StringVar(&o.flags.from, "from", "",
		"plan: directory of the bundle rolled out now; prints the transition's steps")
	fs.StringVarP(&o.flags.output, "output", "o", "text",
		`plan: output format, "text" or "json"`)
}

// namespace is the operator namespace: -n, else aicr-system (never the kubeconfig's namespace).
func (o *Options) namespace() string {
	if o.ConfigFlags.Namespace != nil && *o.ConfigFlags.Namespace != "" {
		return *o.ConfigFlags.Namespace
	}
	return OperatorNamespace
}
