package cli

import (
	"time"

	"github.com/spf13/pflag"
)

// OperatorNamespace is the namespace --operator-namespace defaults to: where the operator
// runs and keeps plans, recipes and upgrade-check reports.
const OperatorNamespace = "aicr-system"

// DefaultEngineNamespace is the namespace --engine-namespace defaults to: where Argo CD runs
// and the operator writes its Applications (the chart's engine.namespace).
const DefaultEngineNamespace = "argocd"

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
	release      string
	dir          string
	bundle       string
	from         string
	output       string
	watch        bool
	timeout      time.Duration
	// operatorNamespace is --operator-namespace; -n/--namespace keeps its kubectl meaning.
	operatorNamespace string
	// engineNamespace is --engine-namespace: where describe reads each step's engine object.
	engineNamespace string
}

// addFlags registers the kubectl flags and the command flags on fs.
func (o *Options) addFlags(fs *pflag.FlagSet) {
	o.ConfigFlags.AddFlags(fs)
	fs.StringVar(&o.flags.operatorNamespace, "operator-namespace", OperatorNamespace,
		"the namespace the operator runs in, where plans, recipes and upgrade-check reports live")
	fs.StringVar(&o.flags.engineNamespace, "engine-namespace", DefaultEngineNamespace,
		"describe: the namespace of Argo CD, where the operator writes its Applications (the chart's engine.namespace)")
	fs.DurationVar(&o.Timeout, "request-timeout", o.Timeout,
		"how long one command may wait for the API server in total (e.g. 10s, 1m); 0 waits forever")
	fs.DurationVar(&o.flags.expires, "expires", 0,
		"approve: how long the approval lasts (e.g. 2h); without it, until the rollout's deadline")
	fs.StringVar(&o.flags.reason, "reason", "",
		"approve, revoke, override: why (required, at most 1024 characters)")
	fs.StringVar(&o.flags.release, "release", "",
		"override: the release of the disruptive step to let go; without it, the step in flight")
	fs.StringVar(&o.flags.dir, "dir", DefaultReproduceDir,
		"reproduce: directory to write recipe.json to")
	fs.StringVar(&o.flags.bundle, "bundle", "",
		"plan: directory of the AICR helm bundle (aicr bundle --deployer helm)")
	fs.StringVar(&o.flags.from, "from", "",
		"plan: directory of the bundle rolled out now; prints the transition's steps")
	fs.StringVarP(&o.flags.output, "output", "o", outputText,
		`describe, plan: output format, "text", "json" or "yaml"`)
	fs.BoolVarP(&o.flags.watch, "watch", "w", false,
		"status: follow the rollout, a line per change, until it ends or stalls")
	fs.DurationVar(&o.flags.timeout, "timeout", 0,
		"status -w: how long to follow the rollout (e.g. 1h); 0 follows it until it ends")
}

// namespace is the operator namespace: --operator-namespace, else aicr-system (never -n or
// the kubeconfig's namespace).
func (o *Options) namespace() string {
	if o.flags.operatorNamespace != "" {
		return o.flags.operatorNamespace
	}
	return OperatorNamespace
}

// engineNamespace is the engine namespace: --engine-namespace, else argocd.
func (o *Options) engineNamespace() string {
	if o.flags.engineNamespace != "" {
		return o.flags.engineNamespace
	}
	return DefaultEngineNamespace
}
