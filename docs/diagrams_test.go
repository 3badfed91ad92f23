package docs_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/test/chartrender"
)

// modulePath prefixes the import path of every package of the operator's module.
const modulePath = "github.com/NVIDIA/aicr/"

// packageTree returns the architecture diagram's node of an import path: domain, ports, app,
// adapters/<name> or cmd/<name>; "" for any other (mocks, test, docs, other modules).
func packageTree(importPath string) string {
	rel, ok := strings.CutPrefix(importPath, modulePath)
	if !ok {
		return ""
	}
	parts := strings.Split(rel, "/")
	switch {
	case parts[0] == "domain" || parts[0] == "ports" || parts[0] == "app":
		return parts[0]
	case len(parts) > 1 && (parts[0] == "adapters" || parts[0] == "cmd"):
		return parts[0] + "/" + parts[1]
	}
	return ""
}

// importGraph returns the module's package trees and the imports between two of them, from
// `go list` of every package of the module (imports of test files left out).
func importGraph(t *testing.T) (trees []string, imports map[[2]string]bool) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")
	cmd.Dir = repoRoot(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list: %s", stderr.String())
	seen := map[string]bool{}
	imports = map[[2]string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		from := packageTree(fields[0])
		if from == "" {
			continue
		}
		if !seen[from] {
			seen[from] = true
			trees = append(trees, from)
		}
		for _, imported := range fields[1:] {
			if to := packageTree(imported); to != "" && to != from {
				imports[[2]string{from, to}] = true
			}
		}
	}
	require.NotEmpty(t, imports, "go list reported no import between the module's package trees")
	return trees, imports
}

// TestDiagrams_ArchitectureIsTheImportGraph: the architecture diagram draws every package tree
// of the module once, and an arrow A --> B exactly where a package under A imports one under B.
func TestDiagrams_ArchitectureIsTheImportGraph(t *testing.T) {
	t.Parallel()
	d := diagram(t, "Architecture")
	trees, imports := importGraph(t)
	var drawnTrees []string
	for _, label := range d.labels {
		drawnTrees = append(drawnTrees, label)
	}
	assert.ElementsMatch(t, trees, drawnTrees, "the nodes are the module's package trees, each once")
	drawn := map[[2]string]bool{}
	for _, a := range d.arrows {
		from, to := d.labels[a.from], d.labels[a.to]
		if !assert.True(t, from != "" && to != "", "arrow %s --> %s joins a subgraph, not two packages", a.from, a.to) {
			continue
		}
		drawn[[2]string{from, to}] = true
		assert.True(t, imports[[2]string{from, to}], "the diagram draws %s --> %s, but no package under %s imports one under %s", from, to, from, to)
	}
	for imp := range imports {
		assert.True(t, drawn[imp], "a package under %s imports one under %s, which the diagram does not draw", imp[0], imp[1])
	}
}

// rolloutPhases are the phases of a RuntimeRollout the API declares.
var rolloutPhases = []aicrv1alpha1.Phase{
	aicrv1alpha1.PhasePending, aicrv1alpha1.PhaseAwaitingApproval, aicrv1alpha1.PhaseProgressing,
	aicrv1alpha1.PhaseAwaitingAcknowledgement, aicrv1alpha1.PhaseValidating, aicrv1alpha1.PhaseSucceeded,
	aicrv1alpha1.PhaseFailed, aicrv1alpha1.PhaseExpired, aicrv1alpha1.PhaseRevoked,
	aicrv1alpha1.PhaseSuperseded, aicrv1alpha1.PhaseOrphaned,
}

// phaseEnum returns the enum of status.phase in the chart's RuntimeRollout CRD, which
// controller-gen generates from the Phase type.
func phaseEnum(t *testing.T) []string {
	t.Helper()
	var crd apiextensionsv1.CustomResourceDefinition
	path := filepath.Join("..", "charts", "aicr-operator", "templates", "crds", "operator.aicr.run_runtimerollouts.yaml")
	require.NoError(t, yaml.Unmarshal([]byte(read(t, path)), &crd))
	for _, v := range crd.Spec.Versions {
		if v.Name != aicrv1alpha1.GroupVersion.Version {
			continue
		}
		var enum []string
		for _, raw := range v.Schema.OpenAPIV3Schema.Properties["status"].Properties["phase"].Enum {
			var phase string
			require.NoError(t, json.Unmarshal(raw.Raw, &phase))
			enum = append(enum, phase)
		}
		return enum
	}
	require.Failf(t, "no version", "the RuntimeRollout CRD serves no %s", aicrv1alpha1.GroupVersion.Version)
	return nil
}

// TestDiagrams_RolloutLifeDrawsEveryPhase: the rollout diagram's nodes are exactly the API's
// phases, the domain's outcomes in the subgraph outcomes and the others in open, and no arrow
// leaves an outcome.
func TestDiagrams_RolloutLifeDrawsEveryPhase(t *testing.T) {
	t.Parallel()
	var phases []string
	for _, p := range rolloutPhases {
		phases = append(phases, string(p))
	}
	require.ElementsMatch(t, phaseEnum(t), phases, "rolloutPhases lists every phase the API's enum holds")

	d := diagram(t, "A rollout's life")
	var nodes []string
	for id, label := range d.labels {
		assert.Equal(t, id, label, "phase node %s is drawn as the phase's name", id)
		nodes = append(nodes, id)
	}
	assert.ElementsMatch(t, phases, nodes, "the nodes are exactly the API's phases")
	require.ElementsMatch(t, []string{"open", "outcomes"}, keys(d.groups))
	for _, p := range phases {
		group := "open"
		if domain.Phase(p).Terminal() {
			group = "outcomes"
		}
		assert.Contains(t, d.groups[group], p, "%s is drawn in the subgraph %s", p, group)
	}
	for _, a := range d.arrows {
		assert.NotEqual(t, "outcomes", a.from, "an arrow leaves the outcomes")
		assert.False(t, domain.Phase(a.from).Terminal(), "an arrow leaves the outcome %s", a.from)
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

var (
	// identityLabel is an identity node of the trust diagram: the kind and name of what the
	// chart renders, then a description after a line break.
	identityLabel = regexp.MustCompile(`^(ServiceAccount|ClusterRole) ([a-z0-9.-]+(?:/[a-z0-9.-]+)?)(?:<br/>|$)`)
	// serviceAccountUser is a ServiceAccount's username, as admission policies compare it.
	serviceAccountUser = regexp.MustCompile(`system:serviceaccount:([a-z0-9-]+):([a-z0-9-]+)`)
	// chartPolicy is the name of one of the chart's admission policies.
	chartPolicy = regexp.MustCompile(`aicr-operator-[a-z-]+`)
)

// chartIdentities is what the chart renders that the trust diagram may name.
type chartIdentities struct {
	// serviceAccounts are the rendered ServiceAccounts and those admission policies name by
	// username, as namespace/name; rendered holds the names the chart renders itself.
	serviceAccounts, rendered map[string]bool
	// clusterRoles are the rendered ClusterRoles; boundToPeople those a ClusterRoleBinding
	// binds to a user or a group.
	clusterRoles, boundToPeople map[string]bool
}

// renderIdentities renders the chart into aicr-system with deployment validation on and a
// group each of approvers and viewers, so their identities and bindings are rendered.
func renderIdentities(t *testing.T) chartIdentities {
	t.Helper()
	objs, err := chartrender.Render("aicr-system", chartrender.WithValues(map[string]any{
		"validation.enabled": true,
		"approvers.groups":   []any{"aicr-approvers"},
		"viewers.groups":     []any{"aicr-viewers"},
	}))
	require.NoError(t, err)
	c := chartIdentities{serviceAccounts: map[string]bool{}, rendered: map[string]bool{}, clusterRoles: map[string]bool{}, boundToPeople: map[string]bool{}}
	for _, o := range objs {
		switch o.GetKind() {
		case "ServiceAccount":
			c.serviceAccounts[o.GetNamespace()+"/"+o.GetName()] = true
			c.rendered[o.GetName()] = true
		case "ClusterRole":
			c.clusterRoles[o.GetName()] = true
		case "ClusterRoleBinding":
			var b rbacv1.ClusterRoleBinding
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &b))
			for _, s := range b.Subjects {
				if s.Kind == rbacv1.UserKind || s.Kind == rbacv1.GroupKind {
					c.boundToPeople[b.RoleRef.Name] = true
				}
			}
		case "ValidatingAdmissionPolicy":
			raw, err := json.Marshal(o.Object)
			require.NoError(t, err)
			for _, m := range serviceAccountUser.FindAllStringSubmatch(string(raw), -1) {
				c.serviceAccounts[m[1]+"/"+m[2]] = true
			}
		}
	}
	return c
}

// TestDiagrams_TrustBoundariesNameWhatTheChartRenders: every identity of the trust diagram is
// a ServiceAccount the chart renders or its admission policies name, or a ClusterRole the chart
// renders and binds to users or groups; every ServiceAccount the chart renders and every
// ClusterRole it binds to people is drawn; arrows go from an identity to what it writes, and
// the policies they name are the chart's.
func TestDiagrams_TrustBoundariesNameWhatTheChartRenders(t *testing.T) {
	t.Parallel()
	chart := renderIdentities(t)
	d := diagram(t, "Trust boundaries")
	identities := d.groups["identities"]
	require.NotEmpty(t, identities)
	drawn := map[string]bool{}
	for _, id := range identities {
		m := identityLabel.FindStringSubmatch(d.labels[id])
		if !assert.NotNil(t, m, "identity %s is not labelled \"ServiceAccount <namespace>/<name>\" or \"ClusterRole <name>\": %q", id, d.labels[id]) {
			continue
		}
		kind, name := m[1], m[2]
		switch kind {
		case "ServiceAccount":
			assert.True(t, chart.serviceAccounts[name], "%s: the chart neither renders ServiceAccount %s nor names it in an admission policy", id, name)
			drawn[name[strings.Index(name, "/")+1:]] = true
		case "ClusterRole":
			assert.True(t, chart.clusterRoles[name], "%s: the chart renders no ClusterRole %s", id, name)
			assert.True(t, chart.boundToPeople[name], "%s: the chart binds ClusterRole %s to no user or group", id, name)
			drawn[name] = true
		}
	}
	for name := range chart.rendered {
		assert.True(t, drawn[name], "the chart renders ServiceAccount %s, which the diagram does not draw", name)
	}
	for role := range chart.boundToPeople {
		assert.True(t, drawn[role], "the chart binds ClusterRole %s to people, which the diagram does not draw", role)
	}
	for _, a := range d.arrows {
		assert.Contains(t, identities, a.from, "arrow %s --> %s starts at an identity", a.from, a.to)
		assert.Contains(t, d.groups["writes"], a.to, "arrow %s --> %s ends at what it writes", a.from, a.to)
		for _, p := range chartPolicy.FindAllString(a.label, -1) {
			assert.Contains(t, shared.ChartAdmissionPolicies, p, "arrow %s --> %s names %s, which is no admission policy of the chart", a.from, a.to, p)
		}
	}
}
