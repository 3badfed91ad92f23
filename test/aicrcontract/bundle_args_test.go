package aicrcontract_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/adapters/jobs"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// recipeDoc is the part of a RecipeResult the cases read.
type recipeDoc struct {
	Kind          string `json:"kind"`
	APIVersion    string `json:"apiVersion"`
	ComponentRefs []struct {
		Name string `json:"name"`
	} `json:"componentRefs"`
}

// referenceRecipes returns AICR's RecipeResults in the reference directory (raw and decoded).
func referenceRecipes(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, p := range referenceFiles(t, ".yaml") {
		raw, err := os.ReadFile(p)
		require.NoError(t, err)
		var doc recipeDoc
		if yaml.Unmarshal(raw, &doc) == nil && doc.Kind == "RecipeResult" {
			out[p] = raw
		}
	}
	require.NotEmpty(t, out, "the reference directory holds no RecipeResult")
	return out
}

func recipeComponents(t *testing.T, raw []byte) []string {
	t.Helper()
	var doc recipeDoc
	require.NoError(t, yaml.Unmarshal(raw, &doc))
	var out []string
	for _, c := range doc.ComponentRefs {
		out = append(out, c.Name)
	}
	require.NotEmpty(t, out)
	return out
}

// bundleRun is what the simulator's AICR does with the operator's bundle Job for cr's render
// flags (shared.BundleArgs, after the resolver's own bundle arguments) over recipe, or with
// args in their place when args is not nil.
func bundleRun(t *testing.T, cr *aicrv1alpha1.ClusterRuntime, recipe []byte, args []string) jobexec.Result {
	t.Helper()
	if args == nil {
		args = shared.BundleArgs(cr)
	}
	name := "aicr-bundle-contract"
	full := append([]string{"--log-json", "bundle", "--deployer", "helm", "-r", ports.JobInputsDir + "/recipe.yaml"}, args...)
	full = append(full, "-o", "cm://aicr-jobs/"+jobs.OutputName(name))
	job := startedJob(t, jobs.Config{Namespace: "aicr-jobs"}, ports.JobSpec{Name: name, Kind: ports.JobBundle, Args: full})
	return fixture(t).Behavior()(job, &corev1.ConfigMap{Data: map[string]string{"recipe.yaml": string(recipe)}})
}

func override(component, path, value string) aicrv1alpha1.Override {
	return aicrv1alpha1.Override{Component: component, Path: path, Value: apiextensionsv1.JSON{Raw: []byte(value)}}
}

func runtimeWith(overrides ...aicrv1alpha1.Override) *aicrv1alpha1.ClusterRuntime {
	return &aicrv1alpha1.ClusterRuntime{Spec: aicrv1alpha1.ClusterRuntimeSpec{Overrides: overrides}}
}

// assertRefused holds res to AICR's refusal of a flag: INVALID_REQUEST, exit 2, naming words.
func assertRefused(t *testing.T, res jobexec.Result, what string, words ...string) {
	t.Helper()
	assert.Equal(t, int32(2), res.ExitCode, what)
	assert.Contains(t, res.Log, "[INVALID_REQUEST]", what)
	for _, w := range words {
		assert.Contains(t, res.Log, w, what)
	}
}

// 9.1: --set-json refuses a component's top-level toggle, naming enabled and pointing to
// --set, and accepts nested paths. For every component of AICR's recipes the operator sets
// the toggle with --set and a nested enabled with --set-json, which the simulator accepts,
// while it refuses the toggle in --set-json as AICR does.
func TestFact9_1_SetJSONRefusesTheToggle(t *testing.T) {
	t.Parallel()
	for p, recipe := range referenceRecipes(t) {
		for _, c := range recipeComponents(t, recipe) {
			cr := runtimeWith(override(c, "enabled", "false"), override(c, "gds.enabled", "true"))
			args := shared.BundleArgs(cr)
			assert.Equal(t, []string{"--set", c + ":enabled=false", "--set-json", c + ":gds.enabled=true"}, args)
			res := bundleRun(t, cr, recipe, nil)
			assert.Equal(t, int32(0), res.ExitCode, "%s %s: %s", p, c, res.Log)
			assertRefused(t, bundleRun(t, cr, recipe, []string{"--set-json", c + ":enabled=false"}), c, "enabled", "--set")
		}
	}
}

// 9.2: --set-json wins over --set-file for one path. The operator passes every value with
// --set or --set-json and never --set-file, so the order of the two never decides a value.
func TestFact9_2_NoSetFile(t *testing.T) {
	t.Parallel()
	for _, recipe := range referenceRecipes(t) {
		for _, c := range recipeComponents(t, recipe) {
			args := shared.BundleArgs(runtimeWith(override(c, "enabled", "true"), override(c, "a.b", `{"c":1}`),
				override(c, "list", `[1,2]`), override(c, "s", `"x"`)))
			assert.NotContains(t, args, "--set-file", c)
			assert.NotEmpty(t, args)
		}
	}
}

// 9.3: an override naming a component the recipe does not hold is refused at bundle time. The
// simulator refuses one over each AICR recipe and accepts the recipe's own components; the
// operator's domain names the unlisted component the refusal is about.
func TestFact9_3_UnknownComponentsRefused(t *testing.T) {
	t.Parallel()
	for p, recipe := range referenceRecipes(t) {
		components := recipeComponents(t, recipe)
		listed := map[string]bool{}
		for _, c := range components {
			listed[c] = true
		}
		unknown := "not-" + strings.Join(components, "-")
		cr := runtimeWith(override(unknown, "a", "1"))
		assertRefused(t, bundleRun(t, cr, recipe, nil), p, "unknown component", unknown)
		assert.Equal(t, []string{unknown}, domain.UnlistedComponents([]domain.Override{{Component: unknown, Path: "a"}}, listed))
		known := runtimeWith(override(components[0], "a", "1"))
		assert.Equal(t, int32(0), bundleRun(t, known, recipe, nil).ExitCode, p)
	}
}

// 9.4: a toleration flag is *, key=value:Effect or key:Effect, split on ':' into exactly two
// parts, with a taint effect; tolerationSeconds has no form. The operator's flags for every
// toleration it renders take those forms and the simulator accepts them; the forms AICR
// rejects are refused; the domain refuses tolerationSeconds before any bundle Job.
func TestFact9_4_TolerationGrammar(t *testing.T) {
	t.Parallel()
	tolerations := []aicrv1alpha1.Toleration{
		{Operator: corev1.TolerationOpExists},
		{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "system", Effect: corev1.TaintEffectNoExecute},
		{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "gpu"},
		{Key: "spot", Operator: corev1.TolerationOpExists},
	}
	cr := runtimeWith()
	cr.Spec.Placement.System.Tolerations = tolerations
	cr.Spec.Placement.Accelerated.Tolerations = tolerations
	args := shared.BundleArgs(cr)
	for i := 0; i+1 < len(args); i += 2 {
		require.True(t, strings.HasSuffix(args[i], "-node-toleration"), args[i])
		v := args[i+1]
		assert.True(t, v == "*" || len(strings.Split(v, ":")) == 2, v)
	}
	recipe := fixture(t).Recipe
	assert.Equal(t, int32(0), bundleRun(t, cr, recipe, nil).ExitCode)
	for _, bad := range []string{"key", "key=value", "a:b:NoSchedule", "key=v:Bogus", "key:"} {
		assertRefused(t, bundleRun(t, cr, recipe, []string{"--accelerated-node-toleration", bad}), bad, bad)
	}
	bounded := domain.CheckTolerations(map[string][]domain.Toleration{"accelerated": {{Key: "k", Operator: "Exists",
		Effect: "NoExecute", Bounded: true}}})
	require.NotNil(t, bounded)
	assert.Equal(t, domain.StallInvalidPlacement, bounded.Reason())
}

// 9.5: node selectors are key=value, validated as node labels; a value without = is refused.
// The operator's selector flags are key=value, which the simulator accepts; the forms AICR
// rejects are refused.
func TestFact9_5_NodeSelectorGrammar(t *testing.T) {
	t.Parallel()
	cr := runtimeWith()
	cr.Spec.Placement = jobexec.FixtureRuntimeSpec().Placement
	cr.Spec.Placement.Accelerated.NodeSelector["nvidia.com/gpu.present"] = "true"
	args := shared.BundleArgs(cr)
	selectors := 0
	for i := 0; i+1 < len(args); i++ {
		if strings.HasSuffix(args[i], "-node-selector") {
			selectors++
			assert.Contains(t, args[i+1], "=")
		}
	}
	assert.Equal(t, 3, selectors)
	recipe := fixture(t).Recipe
	assert.Equal(t, int32(0), bundleRun(t, cr, recipe, nil).ExitCode)
	for _, bad := range []string{"pool", "=gpu", "bad key=x", "k=bad value"} {
		assertRefused(t, bundleRun(t, cr, recipe, []string{"--system-node-selector", bad}), bad, bad)
	}
}
