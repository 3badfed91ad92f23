// Command aicr-operator runs the AICR Operator: it resolves the ClusterRuntime into plans with
// AICR Jobs and rolls them out through the deployment engine. Flags are the ones the chart's
// Deployment passes (app.Config.BindFlags) and controller-runtime's zap flags (--zap-log-level,
// --zap-encoder, ...), which also set klog's logger; an invalid configuration exits with code 2
// and lists every problem. `aicr-operator copy-image-refs <file>` is the step of a bundle Job
// that hands AICR's pushed digest back (copyImageRefs).
package main

import (
	"flag"
	"fmt"
	"os"
	_ "time/tzdata" // the change policy's windows name IANA time zones; the image has no zoneinfo

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/app"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) > 0 && args[0] == jobs.CopyImageRefsCommand {
		return copyImageRefs(args[1:])
	}
	var cfg app.Config
	fs := flag.NewFlagSet("aicr-operator", flag.ContinueOnError)
	cfg.BindFlags(fs)
	logs := bindLogFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(os.Stderr, "aicr-operator: %v\n", err)
		return 2
	}
	if err := setLogger(logs.logger(cfg.LogLevel), logs.klogVerbosity(cfg.LogLevel)); err != nil {
		fmt.Fprintf(os.Stderr, "aicr-operator: %v\n", err)
		return 2
	}
	log := ctrl.Log.WithName("aicr-operator")
	ctx := ctrl.SetupSignalHandler()
	r, cleanup, err := initialize(ctx, cfg)
	if err != nil {
		log.Error(err, "assemble the operator")
		return 1
	}
	defer cleanup()
	if err := r.run(ctx); err != nil {
		log.Error(err, "operator stopped")
		return 1
	}
	log.Info("operator stopped")
	return 0
}
