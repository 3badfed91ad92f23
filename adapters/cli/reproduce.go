package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/domain"
)

const reproduceExample = `  # The active plan, else the candidate
  kubectl aicr reproduce

  # A plan by digest or by ConfigMap name, into another directory
  kubectl aicr reproduce "sha256:<digest>" --dir ./check
  kubectl aicr reproduce aicr-plan-3f9a1c0d2b7e4a51 -n aicr-system`

func newReproduceCommand(o *Options) *cobra.Command {
	return newAPICommand(o, apiCommand{
		use:   "reproduce [PLAN] [--dir DIR]",
		short: "Write a plan's recipe and print the commands that re-render its bundle with the AICR CLI",
		long: "Writes the plan's recipe to <dir>/recipe.json (default aicr-reproduce) and prints the plan, the AICR image\n" +
			"it was rendered with, the operator's bundle reference, and three commands to run yourself: a docker run\n" +
			"of that AICR image rendering the recipe with the plan's flags, an oras pull of the operator's bundle,\n" +
			"and a diff -r of the two. Zero diff means the operator deployed exactly what the AICR CLI renders.\n" +
			"For the active plan it also compares each release's Argo CD Application with the spec the plan renders\n" +
			"for it (a digest of the spec, not the Application's annotations) and exits non-zero when one differs.\n" +
			"PLAN is sha256:<digest> or a plan ConfigMap name aicr-plan-<16 hex>; without it the ClusterRuntime's\n" +
			"active plan, else its candidate. Changes nothing in the cluster. Refuses a plan rebuilt from\n" +
			"Applications, a plan that does not record its render flags, and a recipe whose content does not match\n" +
			"its recorded digest.",
		example: reproduceExample,
		args:    cobra.MaximumNArgs(1),
		run:     runReproduce,
	})
}

func runReproduce(s *session, args []string) error {
	arg := ""
	if len(args) == 1 {
		arg = args[0]
	}
	name, digest, err := s.planName(arg)
	if err != nil {
		return err
	}
	plan, err := s.readPlan(name, digest)
	if err != nil {
		return err
	}
	recipe, err := s.readRecipe(name, plan)
	if err != nil {
		return err
	}
	dir := s.o.flags.dir
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	path := filepath.Join(dir, "recipe.json")
	if err := os.WriteFile(path, recipe, 0o600); err != nil {
		return fmt.Errorf("write recipe: %w", err)
	}
	if err := writeReproduce(s.o, name, plan, path); err != nil {
		return err
	}
	return s.compareApplications(plan)
}

// planName resolves PLAN (or the runtime's active, else candidate plan) to a ConfigMap name
// and, when known, the digest it must carry.
func (s *session) planName(arg string) (name, digest string, err error) {
	switch {
	case arg == "":
		var cr *aicrv1alpha1.ClusterRuntime
		if cr, err = s.clusterRuntime(); err != nil {
			return "", "", err
		}
		digest = orDefault(cr.Status.ActivePlanDigest, cr.Status.CandidatePlanDigest)
		if digest == "" {
			return "", "", fmt.Errorf("clusterruntime cluster has %w; pass PLAN", ErrNoPlan)
		}
	case strings.HasPrefix(arg, "sha256:"):
		digest = arg
	case configdoc.IsPlanConfigMapName(arg):
		return arg, "", nil
	default:
		return "", "", fmt.Errorf("%q: %w", arg, ErrPlanArgument)
	}
	name, err = configdoc.PlanConfigMapName(digest)
	if err != nil {
		return "", "", fmt.Errorf("%q: %w", digest, ErrPlanArgument)
	}
	return name, digest, nil
}

// readPlan reads and checks a plan ConfigMap (planDocument) and applies the refusals of CLI-6.
// Reproduce needs the recipe, not the values, so the values ConfigMap of a schema 2 plan is
// not read.
func (s *session) readPlan(name, digest string) (*configdoc.Plan, error) {
	plan, err := s.planDocument(name, digest)
	if err != nil {
		return nil, err
	}
	switch {
	case plan.Source == domain.SourceRebuilt:
		return nil, fmt.Errorf("plan %s %w: nothing to reproduce", plan.Digest, ErrRebuiltPlan)
	case plan.ConfigMapRef == nil:
		return nil, fmt.Errorf("plan %s %w: it records no recipe (configMapRef)", plan.Digest, ErrRebuiltPlan)
	case plan.RenderFlags == nil:
		return nil, fmt.Errorf("plan %s %w: the AICR render cannot be repeated", plan.Digest, ErrNoRenderFlags)
	}
	return plan, nil
}

// readRecipe reads the plan's recipe and checks it against the digest the plan records.
func (s *session) readRecipe(planName string, plan *configdoc.Plan) ([]byte, error) {
	ref := plan.ConfigMapRef
	cm, err := s.configMap(ref.Name)
	if err != nil {
		return nil, err
	}
	raw, ok := cm.Data[configdoc.RecipeKey]
	if !ok {
		return nil, fmt.Errorf("recipe %s of plan %s has no %s", ref.Name, planName, configdoc.RecipeKey)
	}
	if got := configdoc.ContentDigest([]byte(raw)); got != ref.Digest {
		return nil, fmt.Errorf("recipe %s of plan %s: %w: it is %s, the plan records %s",
			ref.Name, planName, ErrRecipeDigest, got, ref.Digest)
	}
	return []byte(raw), nil
}
