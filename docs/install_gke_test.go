package docs_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/test/chartrender"
)

const (
	gkeProject = "example-project"
	gkeRegion  = "us-central1"
	// operatorRole and pullRole are the least roles on the repository: the operator pushes and
	// moves tags, Argo CD only pulls.
	operatorRole = "roles/artifactregistry.writer"
	pullRole     = "roles/artifactregistry.reader"
	// gkeRender is the repository's AICR render of the GKE H100 training recipe.
	gkeRender = "../test/testdata/aicr/gke-h100-cos-training-kubeflow"
)

var (
	// gkePlaceholders are install-gke.md's <...> words, filled with example values.
	gkePlaceholders = strings.NewReplacer("<project>", gkeProject, "<region>", gkeRegion)
	// artifactRegistry is an Artifact Registry repository as registry.repository names it.
	artifactRegistry = regexp.MustCompile(`^oci://(([a-z0-9-]+)-docker\.pkg\.dev)/([^/]+)/([^/]+)$`)
	// keyFileOf is a login read from a service account's key file.
	keyFileOf = regexp.MustCompile(`^\$\(cat ([^)\s]+)\)$`)
	// grantedRole is every role the guide grants, wherever it is written.
	grantedRole = regexp.MustCompile(`--role[= ]`)
	// yamlDocument separates the documents of a manifest file.
	yamlDocument = regexp.MustCompile(`(?m)^---$`)
)

// gkeGuide is install-gke.md with its placeholders filled: its values blocks merged, the
// objects it applies and its shell commands.
type gkeGuide struct {
	text      string
	values    map[string]any
	namespace *corev1.Namespace
	runtime   *aicrv1alpha1.ClusterRuntime
	commands  []*shellCommand
}

func readGKEGuide(t *testing.T) gkeGuide {
	t.Helper()
	g := gkeGuide{text: gkePlaceholders.Replace(read(t, "install-gke.md")), values: map[string]any{}}
	for _, b := range fencedYAML.FindAllStringSubmatch(g.text, -1) {
		raw := []byte(b[1])
		var head struct{ Kind string }
		require.NoError(t, yaml.Unmarshal(raw, &head), b[1])
		switch head.Kind {
		case "":
			var values map[string]any
			require.NoError(t, yaml.Unmarshal(raw, &values))
			merge(g.values, values)
		case "Namespace":
			g.namespace = &corev1.Namespace{}
			require.NoError(t, yaml.UnmarshalStrict(raw, g.namespace))
		case "ClusterRuntime":
			g.runtime = &aicrv1alpha1.ClusterRuntime{}
			require.NoError(t, yaml.UnmarshalStrict(raw, g.runtime))
		default:
			t.Fatalf("install-gke.md applies a %s this test does not check", head.Kind)
		}
	}
	g.commands = shellCommands(g.text)
	return g
}

// one returns the only command starting with words.
func (g gkeGuide) one(t *testing.T, words ...string) *shellCommand {
	t.Helper()
	var found []*shellCommand
	for _, c := range g.commands {
		if c.is(words...) {
			found = append(found, c)
		}
	}
	require.Len(t, found, 1, "install-gke.md runs `%s` once", strings.Join(words, " "))
	return found[0]
}

// releaseNamespace is the namespace `helm install` installs the chart into.
func (g gkeGuide) releaseNamespace(t *testing.T) string {
	t.Helper()
	install := g.one(t, "helm", "install")
	assert.Equal(t, chartrender.ReleaseName, install.arg(2))
	ns := install.flag("-n")
	require.NotEmpty(t, ns, "helm install -n")
	return ns
}

// repository is registry.repository, an Artifact Registry repository.
func (g gkeGuide) repository(t *testing.T) (url string, parts []string) {
	t.Helper()
	registry, _ := g.values["registry"].(map[string]any)
	url, _ = registry["repository"].(string)
	parts = artifactRegistry.FindStringSubmatch(url)
	require.NotNil(t, parts, "registry.repository %q is not oci://<region>-docker.pkg.dev/<project>/<repository>", url)
	return url, parts
}

// keyOwner returns the service account whose key file a Secret's login reads ("$(cat <file>)").
func (g gkeGuide) keyOwner(t *testing.T, login string) string {
	t.Helper()
	m := keyFileOf.FindStringSubmatch(login)
	require.NotNil(t, m, "the login %q is not read from a key file", login)
	for _, c := range g.commands {
		if c.is("gcloud", "iam", "service-accounts", "keys", "create") && c.arg(5) == m[1] {
			return c.flag("--iam-account")
		}
	}
	require.Failf(t, "no key", "install-gke.md creates no key file %s", m[1])
	return ""
}

// TestInstallGKE_ValuesRender: the chart renders, into the namespace helm installs it in, with
// exactly the values install-gke.md shows (its placeholders filled), the static provider
// among them; the release namespace it creates enforces the restricted level, and its
// ClusterRuntime is the one named cluster, with both node groups and the TCPXO mapping of the
// eight GPU NICs.
func TestInstallGKE_ValuesRender(t *testing.T) {
	t.Parallel()
	g := readGKEGuide(t)
	ns := g.releaseNamespace(t)
	_, err := chartrender.Render(ns, g.values)
	require.NoError(t, err, "the chart refuses the values install-gke.md shows")
	auth, _ := g.values["registry"].(map[string]any)["auth"].(map[string]any)
	assert.Equal(t, "static", auth["provider"], "the chart has no Google Cloud provider")

	require.NotNil(t, g.namespace, "install-gke.md creates the release namespace")
	assert.Equal(t, ns, g.namespace.Name)
	assert.Equal(t, "restricted", g.namespace.Labels["pod-security.kubernetes.io/enforce"])

	require.NotNil(t, g.runtime, "install-gke.md shows the ClusterRuntime")
	assert.Equal(t, aicrv1alpha1.ClusterRuntimeName, g.runtime.Name)
	assert.NotEmpty(t, g.runtime.Spec.Placement.System.NodeSelector)
	assert.NotEmpty(t, g.runtime.Spec.Placement.Accelerated.NodeSelector)
	require.NotNil(t, g.runtime.Spec.Configuration)
	require.NotNil(t, g.runtime.Spec.Configuration.GKE)
	var nics []string
	for _, i := range g.runtime.Spec.Configuration.GKE.TCPXOInterfaces {
		nics = append(nics, i.InterfaceName)
		assert.NotEmpty(t, i.Network, "%s has a GKE network", i.InterfaceName)
	}
	assert.Equal(t, []string{"eth1", "eth2", "eth3", "eth4", "eth5", "eth6", "eth7", "eth8"}, nics)
}

// TestInstallGKE_RolesAreLeastPrivilegeOnTheRepository: the repository install-gke.md creates
// is registry.repository's; every role it grants is granted on that repository, never on the
// project; the account whose key the operator's Secret holds gets exactly the writer role, and
// the other account, whose key Argo CD's repo-creds Secret holds, exactly the reader role.
func TestInstallGKE_RolesAreLeastPrivilegeOnTheRepository(t *testing.T) {
	t.Parallel()
	g := readGKEGuide(t)
	_, repo := g.repository(t)
	host, region, project, name := repo[1], repo[2], repo[3], repo[4]
	create := g.one(t, "gcloud", "artifacts", "repositories", "create")
	assert.Equal(t, name, create.arg(4), "the repository registry.repository names")
	assert.Equal(t, region, create.flag("--location"), "the region of %s", host)
	assert.Equal(t, project, create.flag("--project"))
	assert.Equal(t, "docker", create.flag("--repository-format"))

	accounts := map[string]bool{}
	roles := map[string][]string{}
	bindings := 0
	for _, c := range g.commands {
		if c.is("gcloud", "iam", "service-accounts", "create") {
			assert.Equal(t, project, c.flag("--project"))
			accounts[c.arg(4)+"@"+project+".iam.gserviceaccount.com"] = true
		}
		if !strings.Contains(strings.Join(c.words, " "), "add-iam-policy-binding") {
			continue
		}
		bindings++
		if !assert.True(t, c.is("gcloud", "artifacts", "repositories", "add-iam-policy-binding"),
			"`%s` grants beyond the repository", strings.Join(c.words, " ")) {
			continue
		}
		assert.Equal(t, name, c.arg(4), "granted on the repository registry.repository names")
		assert.Equal(t, region, c.flag("--location"))
		assert.Equal(t, project, c.flag("--project"))
		member, role := c.flag("--member"), c.flag("--role")
		require.NotEmpty(t, role, "one --role per binding")
		roles[member] = append(roles[member], role)
	}
	assert.Len(t, grantedRole.FindAllString(g.text, -1), bindings, "every --role is in a repository binding")

	operator := g.keyOwner(t, g.one(t, "kubectl", "create", "secret", "docker-registry").flag("--docker-password"))
	pull := g.keyOwner(t, literals(g.one(t, "kubectl", "create", "secret", "generic"))["password"])
	assert.NotEqual(t, operator, pull, "Argo CD's login is another account's")
	for _, sa := range []string{operator, pull} {
		assert.True(t, accounts[sa], "install-gke.md creates %s", sa)
	}
	assert.Equal(t, map[string][]string{
		"serviceAccount:" + operator: {operatorRole},
		"serviceAccount:" + pull:     {pullRole},
	}, roles)
}

// TestInstallGKE_SecretsAreTheOnesTheChartReads: the Secrets install-gke.md creates are the
// ones the operator the chart renders reads, in their namespaces: the docker config Secret of
// the static provider in the release namespace, for the host of registry.repository, and Argo
// CD's repo-creds Secret, an OCI one for registry.repository, in the engine namespace.
func TestInstallGKE_SecretsAreTheOnesTheChartReads(t *testing.T) {
	t.Parallel()
	g := readGKEGuide(t)
	url, repo := g.repository(t)
	ns := g.releaseNamespace(t)
	objs, err := chartrender.Render(ns, g.values)
	require.NoError(t, err, "the chart refuses the values install-gke.md shows")
	args, err := chartrender.OperatorArgs(objs, ns)
	require.NoError(t, err)
	assert.Equal(t, "static", chartrender.FlagValue(args, "--registry-auth-provider"))
	assert.Equal(t, url, chartrender.FlagValue(args, "--registry-repository"))

	push := g.one(t, "kubectl", "create", "secret", "docker-registry")
	assert.Equal(t, chartrender.FlagValue(args, "--registry-static-secret"), push.arg(4), "registry.auth.staticSecret")
	assert.Equal(t, ns, push.flag("-n"), "the static Secret is in the release namespace")
	assert.Equal(t, repo[1], push.flag("--docker-server"), "the registry host of registry.repository")
	assert.Equal(t, "_json_key", push.flag("--docker-username"))
	assertApplied(t, push)

	pull := g.one(t, "kubectl", "create", "secret", "generic")
	assert.Equal(t, chartrender.FlagValue(args, "--registry-repo-creds-secret"), pull.arg(4), "registry.auth.repoCredsSecret")
	assert.Equal(t, chartrender.FlagValue(args, "--engine-namespace"), pull.flag("-n"), "repo-creds is in engine.namespace")
	data := literals(pull)
	assert.Equal(t, "oci", data["type"])
	assert.Equal(t, url, data["url"], "Argo CD's credentials cover the registry")
	assert.Equal(t, "_json_key", data["username"])
	if label := pull.pipedTo; assert.NotNil(t, label, "the repo-creds Secret is labelled") {
		assert.True(t, label.is("kubectl", "label", "--local", "-f", "-"), strings.Join(label.words, " "))
		assert.Contains(t, label.words, "argocd.argoproj.io/secret-type=repo-creds")
		assertApplied(t, label)
	}
}

// literals returns the --from-literal key=value pairs of `kubectl create secret generic`.
func literals(c *shellCommand) map[string]string {
	out := map[string]string{}
	for _, kv := range c.flags("--from-literal") {
		k, v, _ := strings.Cut(kv, "=")
		out[k] = v
	}
	return out
}

// assertApplied checks that a command's output is applied to the cluster.
func assertApplied(t *testing.T, c *shellCommand) {
	t.Helper()
	if assert.NotNil(t, c.pipedTo, "`%s` is applied", strings.Join(c.words, " ")) {
		assert.True(t, c.pipedTo.is("kubectl", "apply"), strings.Join(c.pipedTo.words, " "))
	}
}

// TestInstallGKE_NamespacesAreTheRecipes: namespaces.components names exactly the namespaces
// the repository's render of the GKE H100 training recipe deploys into, its releases' and
// those its manifests name (kube-system for GPUDirect-TCPXO); every namespace install-gke.md
// has the release adopt is one of them, adopted by the release helm installs.
func TestInstallGKE_NamespacesAreTheRecipes(t *testing.T) {
	t.Parallel()
	g := readGKEGuide(t)
	namespaces, _ := g.values["namespaces"].(map[string]any)
	components, _ := namespaces["components"].([]any)
	var listed []string
	for _, c := range components {
		component, _ := c.(map[string]any)
		name, _ := component["name"].(string)
		listed = append(listed, name)
	}
	rendered := renderNamespaces(t)
	assert.ElementsMatch(t, rendered, listed, "namespaces.components against the render's namespaces")

	ns := g.releaseNamespace(t)
	for _, c := range g.commands {
		if !c.is("kubectl", "annotate", "namespace") {
			continue
		}
		assert.Contains(t, listed, c.arg(3), "an adopted namespace is a component namespace")
		assert.Contains(t, c.words, "meta.helm.sh/release-name="+chartrender.ReleaseName)
		assert.Contains(t, c.words, "meta.helm.sh/release-namespace="+ns)
	}
}

// renderNamespaces returns the namespaces of the GKE render: its releases', and those of the
// manifests it applies, whose componentRef may carry none.
func renderNamespaces(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(gkeRender, "expected-releases.json"))
	require.NoError(t, err)
	var expected struct {
		Releases []struct{ Namespace string }
	}
	require.NoError(t, json.Unmarshal(raw, &expected))
	seen := map[string]bool{}
	for _, r := range expected.Releases {
		if r.Namespace != "" {
			seen[r.Namespace] = true
		}
	}
	manifests, err := filepath.Glob(filepath.Join(gkeRender, "bundle-helm", "*", "manifests", "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, manifests)
	for _, path := range manifests {
		raw, err := os.ReadFile(path)
		require.NoError(t, err)
		for _, doc := range yamlDocument.Split(string(raw), -1) {
			var obj struct{ Metadata struct{ Namespace string } }
			require.NoError(t, yaml.Unmarshal([]byte(doc), &obj), path)
			if obj.Metadata.Namespace != "" {
				seen[obj.Metadata.Namespace] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for ns := range seen {
		out = append(out, ns)
	}
	return out
}
