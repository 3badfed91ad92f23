package cli_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/argocd"
	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
	"github.com/NVIDIA/aicr/adapters/kube/planstore/planstoretest"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

const (
	aicrImage = "ghcr.io/nvidia/aicr@sha256:1111111111111111111111111111111111111111111111111111111111111111"
	bundleRef = "registry.example.com/aicr/bundles@sha256:2222222222222222222222222222222222222222222222222222222222222222"
	recipe    = `{"apiVersion":"aicr.run/v1","kind":"RecipeResult","metadata":{"version":"v1.0.0"}}`
)

// storedPlan is a plan the resolver wrote: the plan ConfigMap and its recipe ConfigMap.
type storedPlan struct {
	seed        string
	source      domain.PlanSource
	renderFlags []string
	noRecipe    bool
	// recipeDigest overrides the digest the plan records for its recipe.
	recipeDigest string
	// schemaLabel overrides the schema-version label (default "2").
	schemaLabel string
	// schema1 stores the plan as an operator of plan schema 1 did: values inline, no values ConfigMap.
	schema1 bool
	// more are the IDs of the releases the plan holds after gpu-operator, each in the namespace
	// of its name, without values.
	more []string
}

// plans numbers the plans the tests store, so each has a digest (and ConfigMap names) of its
// own, new on every run of go test -count.
var plans atomic.Int64

// create writes the plan through the plan store as the operator does, then tampers with it as
// the storedPlan asks, and returns its digest and ConfigMap name.
func (sp storedPlan) create(t *testing.T) (digest, name string) {
	t.Helper()
	digest = digestOf(fmt.Sprintf("%s #%d", sp.seed, plans.Add(1)))
	name, err := configdoc.PlanConfigMapName(digest)
	require.NoError(t, err)
	plan := &domain.Plan{
		SchemaVersion: domain.PlanSchemaVersion, Digest: digest, RuntimeUID: runtimeUID,
		Source: sp.source, AICRVersion: "v1.0.0", HasRecipe: !sp.noRecipe,
		Releases: []domain.Release{storedRelease("gpu-operator")},
	}
	for _, id := range sp.more {
		plan.Releases = append(plan.Releases, storedRelease(id))
	}
	for i := range plan.Releases {
		plan.Releases[i].ValuesDigest, err = domain.Digest(plan.Releases[i].Values)
		require.NoError(t, err)
	}
	written := planstoretest.Plan{Plan: plan, RenderFlags: sp.renderFlags, BundleRef: bundleRef, Image: aicrImage}
	if !sp.noRecipe {
		written.Recipe = []byte(recipe)
	}
	store := planstoretest.Store{Client: clientFor(operatorConfig()), Namespace: operatorNS}
	store.Write(t, written)
	if sp.renderFlags == nil || sp.recipeDigest != "" {
		store.EditPlan(t, digest, func(doc *configdoc.Plan) {
			if sp.renderFlags == nil {
				doc.RenderFlags = nil // the plan store records an empty list for a resolved plan
			}
			if sp.recipeDigest != "" {
				doc.ConfigMapRef.Digest = sp.recipeDigest
			}
		})
	}
	if sp.schemaLabel != "" {
		store.Tamper(t, name, func(cm *corev1.ConfigMap) { cm.Labels[aicrv1alpha1.LabelSchemaVersion] = sp.schemaLabel })
	}
	if sp.schema1 {
		store.AsSchema1(t, plan)
	}
	return digest, name
}

// storedRelease is release id of a storedPlan: its chart pinned by a digest of its ID, in the
// namespace of its name, gpu-operator with values (an explicit null among them), the others
// without.
func storedRelease(id string) domain.Release {
	r := domain.Release{ID: id, Namespace: id, Component: id, Kind: ports.KindUpstream,
		Chart: ports.ChartSource{Repository: "https://charts.example.com", Name: id, Version: "1.0.0", ManifestDigest: digestOf(id)}}
	if id == "gpu-operator" {
		r.Values = map[string]any{"driver": map[string]any{"version": "580.82.07"}, "gone": nil}
	}
	return r
}

// appliedAsPlanned is the ReleaseSpec the operator applies for release id of a storedPlan of
// digest plan, owned by runtimeUID.
func appliedAsPlanned(plan, id, runtimeUID string) ports.ReleaseSpec {
	r := storedRelease(id)
	return ports.ReleaseSpec{Ref: r.Ref(), Component: r.Component, Kind: r.Kind, Chart: r.Chart, Values: r.Values,
		Owner: ports.ReleaseOwner{RuntimeUID: runtimeUID, PlanDigest: plan}}
}

// storedRecipeName is the name the plan store gives the recipe ConfigMap of recipe: its content
// digest's first 16 hex.
func storedRecipeName(t *testing.T) string {
	t.Helper()
	d, err := planstore.RecipeDigest([]byte(recipe))
	require.NoError(t, err)
	return planstore.RecipePrefix + strings.TrimPrefix(d, "sha256:")[:16]
}

func resolvedPlan(seed string) storedPlan {
	return storedPlan{seed: seed, source: domain.SourceResolved,
		renderFlags: []string{"--deployer", "helm", "--set", "gpuoperator:driver.version=580.82.07 lts"}}
}

// setRuntimePlans sets the ClusterRuntime's active and candidate plan digests as the operator.
func setRuntimePlans(t *testing.T, active, candidate string) {
	t.Helper()
	op := clientFor(operatorConfig())
	cr := &aicrv1alpha1.ClusterRuntime{}
	require.NoError(t, op.Get(context.Background(), client.ObjectKey{Name: "cluster"}, cr))
	patch := client.MergeFrom(cr.DeepCopy())
	cr.Status.ActivePlanDigest, cr.Status.CandidatePlanDigest = active, candidate
	require.NoError(t, op.Status().Patch(context.Background(), cr, patch))
}

func TestReproduce_ByDigestAndByName(t *testing.T) {
	needEnv(t)
	t.Parallel()
	digest, name := resolvedPlan("reproduce by digest").create(t)
	dir := t.TempDir()
	recipeName := storedRecipeName(t)

	for _, arg := range []string{digest, name} {
		r := run(approverUser, "reproduce", arg, "--dir", dir, "--operator-namespace", operatorNS)

		requireOK(t, r)
		assert.Equal(t, "Plan:       "+digest+" (configmap aicr-system/"+name+")\n"+
			"Checked:    form and digests only; the plugin holds no seal key, the operator reads a plan only under its seal\n"+
			"Source:     resolved by AICR v1.0.0 for runtime "+runtimeUID+", releases: 1\n"+
			"AICR image: "+aicrImage+"\n"+
			"Bundle:     "+bundleRef+"\n"+
			"Recipe:     "+dir+"/recipe.json ("+recipeName+", "+configdoc.ContentDigest([]byte(recipe))+")\n"+
			"\nTo check that the operator deployed exactly what the AICR CLI renders, run:\n\n"+
			`  docker run --rm --user "$(id -u):$(id -g)" -v `+dir+`:/work -w /work `+aicrImage+
			` bundle --recipe /work/recipe.json --output /work/aicr-bundle --deployer helm --set 'gpuoperator:driver.version=580.82.07 lts'`+"\n"+
			"  oras pull "+bundleRef+" --output "+dir+"/operator-bundle\n"+
			"  diff -r "+dir+"/aicr-bundle "+dir+"/operator-bundle\n"+
			"\nNo difference means the operator deployed exactly what the AICR CLI renders; verify the bundle yourself.\n"+
			"\nApplications not compared: plan "+digest+" is not the active plan\n",
			r.stdout)
		written, err := os.ReadFile(filepath.Join(dir, "recipe.json"))
		require.NoError(t, err)
		assert.Equal(t, recipe, string(written))
	}
}

// TestReproduce_PLAN1_ReadsASchema1Plan: a plan an operator of plan schema 1 wrote, values
// inline, is reproduced like a schema 2 plan.
func TestReproduce_PLAN1_ReadsASchema1Plan(t *testing.T) {
	needEnv(t)
	t.Parallel()
	old := resolvedPlan("schema 1 plan")
	old.schema1 = true
	digest, name := old.create(t)
	dir := t.TempDir()

	r := run(approverUser, "reproduce", digest, "--dir", dir, "--operator-namespace", operatorNS)

	requireOK(t, r)
	assert.Contains(t, r.stdout, "Plan:       "+digest+" (configmap aicr-system/"+name+")\n")
	assert.FileExists(t, filepath.Join(dir, "recipe.json"))
}

func TestReproduce_DefaultsToTheActiveElseTheCandidatePlan(t *testing.T) {
	needEnv(t)
	active, _ := resolvedPlan("active plan").create(t)
	candidate, _ := resolvedPlan("candidate plan").create(t)
	wd := t.TempDir()
	t.Chdir(wd)

	setRuntimePlans(t, active, candidate)
	r := run(approverUser, "reproduce")
	assert.NotEqual(t, 0, r.code, "the active plan's release has no Application: a difference")
	assert.Contains(t, r.stdout, "Plan:       "+active+" ")
	assert.Contains(t, r.stdout, "  gpu-operator/gpu-operator: missing: the release has no Application\n")
	assert.Contains(t, r.stdout, `-v "$PWD"/aicr-reproduce:/work -w /work`)
	assert.FileExists(t, filepath.Join(wd, "aicr-reproduce", "recipe.json"))

	setRuntimePlans(t, "", candidate)
	r = run(approverUser, "reproduce")
	requireOK(t, r)
	assert.Contains(t, r.stdout, "Plan:       "+candidate+" ")

	setRuntimePlans(t, "", "")
	requireRefused(t, run(approverUser, "reproduce"), "clusterruntime cluster has no active or candidate plan; pass PLAN")
}

// TestReproduce_QuotesTheDirectory: a --dir with a space and a quote gives commands a POSIX
// shell runs as printed (CLI-6).
func TestReproduce_QuotesTheDirectory(t *testing.T) {
	needEnv(t)
	digest, _ := resolvedPlan("quoted dir").create(t)
	t.Chdir(t.TempDir())

	r := run(approverUser, "reproduce", digest, "--dir", "it's here", "--operator-namespace", operatorNS)

	requireOK(t, r)
	assert.Contains(t, r.stdout, `-v "$PWD"/'it'"'"'s here:/work' -w /work `)
	assert.Contains(t, r.stdout, `  diff -r 'it'"'"'s here/aicr-bundle' 'it'"'"'s here/operator-bundle'`)
	assert.FileExists(t, filepath.Join("it's here", "recipe.json"))
}

func TestReproduce_Refusals(t *testing.T) {
	needEnv(t)
	t.Parallel()
	noFlags := resolvedPlan("no render flags")
	noFlags.renderFlags = nil
	badRecipe := resolvedPlan("tampered recipe")
	badRecipe.recipeDigest = digestOf("another recipe")
	rebuilt := storedPlan{seed: "rebuilt", source: domain.SourceRebuilt, noRecipe: true}
	newerSchema := resolvedPlan("newer schema")
	newerSchema.schemaLabel = "3"
	tests := []struct {
		name string
		plan *storedPlan
		arg  string
		want string
	}{
		{name: "rebuilt plan", plan: &rebuilt,
			want: "was rebuilt from the engine's Applications and has no recipe: nothing to reproduce"},
		{name: "no render flags", plan: &noFlags,
			want: "does not record its render flags: the AICR render cannot be repeated"},
		{name: "recipe not matching its digest", plan: &badRecipe,
			want: "content does not match its recorded digest: it is " + configdoc.ContentDigest([]byte(recipe)) +
				", the plan records " + digestOf("another recipe")},
		{name: "unsupported schema (PLAN-6)", plan: &newerSchema,
			want: `is not a readable plan: schema-version label "3" and payload schemaVersion 2, this plugin reads 1 to 2`},
		{name: "neither digest nor plan name", arg: "my-plan",
			want: `"my-plan": PLAN must be "sha256:<64 hex>" or a plan ConfigMap name aicr-plan-<16 hex>`},
		{name: "no such plan", arg: digestOf("nothing"),
			want: `configmaps "aicr-plan-`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			arg := tt.arg
			if tt.plan != nil {
				arg, _ = tt.plan.create(t)
			}
			dir := t.TempDir()

			r := run(approverUser, "reproduce", arg, "--dir", dir)

			requireRefused(t, r, tt.want)
			assert.NoFileExists(t, filepath.Join(dir, "recipe.json"))
		})
	}
}

func TestReproduce_RefusedByTheAPIServer(t *testing.T) {
	needEnv(t)
	t.Parallel()
	digest, _ := resolvedPlan("stranger").create(t)

	r := run(strangerUser, "reproduce", digest, "--dir", t.TempDir())

	requireRefused(t, r, `User "stranger-sam" cannot get resource "configmaps" in API group "" in the namespace "aicr-system"`)
}

// TestReproduce_ShowsAHandEditedApplication: for the active plan, reproduce compares each
// release's Argo CD Application with the spec the plan renders for it, by the digest of the
// spec and not the Application's annotations: as written by the operator there is no
// difference; once a Helm parameter is added by hand, reproduce names the drifted Application
// and exits non-zero, whatever Argo CD reports.
func TestReproduce_ShowsAHandEditedApplication(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	digest, _ := resolvedPlan("hand-edited application").create(t)
	setRuntimePlans(t, digest, "")
	t.Cleanup(func() { setRuntimePlans(t, "", "") })
	admin := clientFor(testEnv.Config)
	engine := argocd.NewEngine(admin, nil, argocd.Config{Registry: "registry.example.com/aicr"})
	spec := appliedAsPlanned(digest, "gpu-operator", string(getRuntime(t).UID))
	require.NoError(t, engine.Apply(ctx, spec))
	app := &argov1.Application{ObjectMeta: metav1.ObjectMeta{Namespace: argocd.DefaultNamespace, Name: argocd.ApplicationName(spec.Ref)}}
	t.Cleanup(func() { require.NoError(t, client.IgnoreNotFound(admin.Delete(ctx, app))) })
	dir := t.TempDir()

	r := run(approverUser, "reproduce", "--dir", dir)
	requireOK(t, r)
	assert.Contains(t, r.stdout, "\nApplications in argocd against plan "+digest+":\n"+
		"  gpu-operator/gpu-operator: as planned\n0 of 1 Applications differ from the plan.\n")

	edit := client.RawPatch(types.MergePatchType,
		[]byte(`{"spec":{"source":{"helm":{"parameters":[{"name":"driver.version","value":"1.0.0"}]}}}}`))
	require.NoError(t, admin.Patch(ctx, app, edit))
	r = run(approverUser, "reproduce", "--dir", dir)
	assert.NotEqual(t, 0, r.code, "a hand-edited Application is a difference")
	assert.Contains(t, r.stdout, "  gpu-operator/gpu-operator: drifted: its spec differs from what plan "+digest+" renders for it")
	assert.Contains(t, r.stdout, "1 of 1 Applications differ from the plan.\n")
	assert.Contains(t, r.stderr, "1 of 1 Applications of plan "+digest+": differ from what the plan renders")
}
