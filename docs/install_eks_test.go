package docs_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/test/chartrender"
)

// pullActions are what Argo CD's pull role may do: the token, and read an image under the prefix.
var pullActions = []string{
	"ecr:GetAuthorizationToken", "ecr:BatchCheckLayerAvailability", "ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer",
}

// checkPullPolicy holds the pull role's policy to reading: exactly pullActions, the token alone
// on "*", the rest under the prefix registry.repository uses.
func checkPullPolicy(t *testing.T, text string, p iamPolicy) {
	t.Helper()
	var granted []string
	for _, s := range p.Statement {
		actions, resources := stringsOf(t, s.Action), stringsOf(t, s.Resource)
		granted = append(granted, actions...)
		if slices.Contains(actions, "ecr:GetAuthorizationToken") {
			assert.Equal(t, []string{"ecr:GetAuthorizationToken"}, actions, "GetAuthorizationToken stands alone")
			assert.Equal(t, []string{"*"}, resources)
			continue
		}
		for _, r := range resources {
			m := repoResource.FindStringSubmatch(r)
			if assert.NotNil(t, m, "resource %s is not under a repository prefix", r) {
				assert.Contains(t, text, "repository: oci://<account>.dkr.ecr.<region>.amazonaws.com/"+m[1]+"\n")
			}
		}
	}
	assert.ElementsMatch(t, pullActions, granted, "the pull role reads and does nothing else")
}

var (
	fencedYAML = regexp.MustCompile("(?s)```yaml\n(.*?)```")
	// placeholders are the guide's <...> words, filled with example values to render.
	placeholders = strings.NewReplacer("<account>", "123456789012", "<region>", "us-west-2")
)

// TestInstallEKS_ValuesRender: the chart renders with exactly the values install-eks.md shows
// (its placeholders filled), with either identity of steps 3a and 3b; the pull role's ARN is
// among them, as the aws provider requires.
func TestInstallEKS_ValuesRender(t *testing.T) {
	t.Parallel()
	text := read(t, "install-eks.md")
	shared := map[string]any{}
	var identities []map[string]any
	for _, b := range fencedYAML.FindAllStringSubmatch(text, -1) {
		var values map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(placeholders.Replace(b[1])), &values), "install-eks.md YAML block:\n%s", b[1])
		if op, ok := values["operator"].(map[string]any); ok && (op["awsPodIdentity"] != nil || op["serviceAccountAnnotations"] != nil) {
			identities = append(identities, values)
			continue
		}
		merge(shared, values)
	}
	require.Len(t, identities, 2, "Pod Identity (3a) and IRSA (3b)")
	auth, _ := shared["registry"].(map[string]any)["auth"].(map[string]any)
	assert.Equal(t, "arn:aws:iam::123456789012:role/aicr-registry-pull", auth["awsPullRoleArn"])
	for _, identity := range identities {
		values := map[string]any{}
		merge(values, shared)
		merge(values, identity)
		_, err := chartrender.Render("aicr-system", values)
		assert.NoError(t, err, "the guide's values with %v", identity["operator"])
	}
}

// merge copies src into dst, merging maps key by key.
func merge(dst, src map[string]any) {
	for k, v := range src {
		if sub, ok := v.(map[string]any); ok {
			if into, ok := dst[k].(map[string]any); ok {
				merge(into, sub)
				continue
			}
			copied := map[string]any{}
			merge(copied, sub)
			dst[k] = copied
			continue
		}
		dst[k] = v
	}
}
