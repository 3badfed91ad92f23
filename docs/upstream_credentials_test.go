package docs_test

import (
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/test/chartrender"
)

// TestOperations_UpstreamCredentialsAreTheOnesTheOperatorReads: the values the private upstream
// section shows (its <org> filled) render and reach the operator as --upstream-credentials it
// accepts, naming the Secret the section's kubectl command creates: a kubernetes.io/basic-auth
// Secret of the release namespace with NGC's username and a password.
func TestOperations_UpstreamCredentialsAreTheOnesTheOperatorReads(t *testing.T) {
	t.Parallel()
	const ns = "aicr-system"
	body := sectionBody(t, "operations.md", "Private upstream chart sources")
	blocks := fencedYAML.FindAllStringSubmatch(body, -1)
	require.Len(t, blocks, 1, "one values block")
	var shown map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(strings.ReplaceAll(blocks[0][1], "<org>", "example-org")), &shown))
	values := chartrender.RequiredValues()
	merge(values, shown)
	objs, err := chartrender.Render(ns, values)
	require.NoError(t, err, "the chart refuses the section's values")
	args, err := chartrender.OperatorArgs(objs, ns)
	require.NoError(t, err)
	var cfg app.Config
	fs := flag.NewFlagSet("aicr-operator", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg.BindFlags(fs)
	require.NoError(t, fs.Parse(args))
	require.NoError(t, cfg.Validate())
	require.Len(t, cfg.UpstreamCredentials, 2, "NGC's Helm repository and OCI registry")

	var created []*shellCommand
	for _, c := range shellCommands(body) {
		if c.is("kubectl", "create", "secret", "generic") {
			created = append(created, c)
		}
	}
	require.Len(t, created, 1, "the section creates one Secret")
	secret := created[0]
	for _, c := range cfg.UpstreamCredentials {
		assert.Equal(t, secret.arg(4), c.Secret, "the Secret of %s", c.Repository)
	}
	assert.Equal(t, "kubernetes.io/basic-auth", secret.flag("--type"))
	assert.Equal(t, ns, secret.flag("-n"), "the Secret is in the release namespace")
	assert.ElementsMatch(t, []string{"username=$oauthtoken", "password=<API key>"}, secret.flags("--from-literal"))
}
