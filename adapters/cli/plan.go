package cli

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/NVIDIA/aicr/domain"
)

const planExample = `  # The plan an AICR helm bundle produces
  kubectl aicr plan --bundle ./bundle-helm

  # The steps of the transition from the bundle rolled out today to a new one
  kubectl aicr plan --bundle ./new/bundle-helm --from ./old/bundle-helm

  # The same as JSON (releases in the shape of expected-releases.json), or as YAML
  kubectl aicr plan --bundle ./bundle-helm -o json
  kubectl aicr plan --bundle ./bundle-helm -o yaml`

var errBundleRequired = errors.New("--bundle is required")

// planOptions runs `kubectl aicr plan` with the flags of the root command.
type planOptions struct {
	*Options
}

func newPlanCommand(o *Options) *cobra.Command {
	po := &planOptions{Options: o}
	cmd := &cobra.Command{
		Use:     "plan --bundle DIR [--from DIR] [-o json|yaml]",
		Short:   "Print the plan an AICR helm bundle produces (offline)",
		Long:    "Print the plan an AICR v1.x helm bundle produces: its desiredStateDigest and releases in deployment order, and with --from the steps of the transition from another bundle. Works offline.",
		Example: planExample,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := po.validate(); err != nil {
				return err
			}
			return po.run()
		},
	}
	return cmd
}

func (po *planOptions) validate() error {
	var errs []error
	if po.flags.bundle == "" {
		errs = append(errs, errBundleRequired)
	}
	if err := validateOutput(po.Options); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (po *planOptions) run() error {
	target, err := po.readPlan(po.flags.bundle)
	if err != nil {
		return err
	}
	var tr *domain.Transition
	var active *domain.Plan
	if po.flags.from != "" {
		if active, err = po.readPlan(po.flags.from); err != nil {
			return err
		}
		t, terr := domain.PlanTransition(domain.TransitionInput{Active: active, Target: target})
		if terr != nil {
			return fmt.Errorf("plan transition: %w", terr)
		}
		tr = &t
	}
	view, err := newPlanView(target, active, tr)
	if err != nil {
		return err
	}
	if po.flags.output != outputText {
		return writeStructured(po.Out, po.flags.output, view)
	}
	return view.writeText(po.Out)
}

// readPlan reads a bundle directory with the options' bundle reader and builds its plan.
func (po *planOptions) readPlan(dir string) (*domain.Plan, error) {
	if po.Bundles == nil {
		return nil, errNoBundleReader
	}
	b, err := po.Bundles.ReadBundle(os.DirFS(dir))
	if err != nil {
		return nil, fmt.Errorf("read bundle %s: %w", dir, err)
	}
	p, err := domain.BuildPlan(domain.PlanInput{Bundle: b, Source: domain.SourceResolved})
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", dir, err)
	}
	return p, nil
}
