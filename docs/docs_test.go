package docs_test

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/NVIDIA/aicr/adapters/cli"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/domain"
)

// pages are the hand-written pages; api-reference.md is generated (make api-docs).
var pages = []string{"operations.md", "troubleshooting.md", "install-eks.md", "install-gke.md", "quickstart.md", "upgrading.md"}

const apiReference = "api-reference.md"

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	return string(b)
}

// section is one heading of a page with the text up to the next heading of its level or above.
type section struct {
	level int
	title string
	body  string
}

// sections splits a Markdown page at its ATX headings, ignoring lines in fenced code blocks:
// a section's body runs to the next heading of its level or above.
func sections(text string) []section {
	lines := strings.Split(text, "\n")
	type at struct {
		line int
		section
	}
	var heads []at
	fenced := false
	for i, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		}
		if level, title, ok := heading(line); ok && !fenced {
			heads = append(heads, at{line: i, section: section{level: level, title: title}})
		}
	}
	out := make([]section, 0, len(heads))
	for i, h := range heads {
		end := len(lines)
		for _, next := range heads[i+1:] {
			if next.level <= h.level {
				end = next.line
				break
			}
		}
		h.body = strings.Join(lines[h.line+1:end], "\n")
		out = append(out, h.section)
	}
	return out
}

var headingLine = regexp.MustCompile(`^(#{1,6}) +(.+?) *#*$`)

func heading(line string) (int, string, bool) {
	m := headingLine.FindStringSubmatch(line)
	if m == nil {
		return 0, "", false
	}
	return len(m[1]), m[2], true
}

// TestTroubleshooting_OneSectionPerStallReason: every reason of the domain's closed set has a
// "### <Reason>" section saying what it means, how to confirm it and how to get unstuck, and
// every such section names a reason that exists.
func TestTroubleshooting_OneSectionPerStallReason(t *testing.T) {
	t.Parallel()
	reasons := map[string]bool{}
	for _, r := range domain.StallReasons() {
		reasons[string(r)] = true
	}
	seen := map[string]bool{}
	for _, s := range sections(read(t, "troubleshooting.md")) {
		if s.level != 3 {
			continue
		}
		assert.True(t, reasons[s.title], "section %q names no stall reason of domain.StallReasons()", s.title)
		assert.False(t, seen[s.title], "reason %s has two sections", s.title)
		seen[s.title] = true
		for _, part := range []string{"**Means.**", "**Confirm.**", "**Fix.**"} {
			assert.Contains(t, s.body, part, "section %s", s.title)
		}
		confirm := s.body[strings.Index(s.body, "**Confirm.**"):]
		confirm = confirm[:max(strings.Index(confirm, "**Fix.**"), 0)]
		assert.Regexp(t, "kubectl|oras", confirm, "section %s confirms with a command", s.title)
	}
	for r := range reasons {
		assert.True(t, seen[r], "stall reason %s has no \"### %s\" section in troubleshooting.md", r, r)
	}
}

// pluginCommand matches "kubectl aicr <command>" and the rest of its line (up to the end of an
// inline code span).
var pluginCommand = regexp.MustCompile("kubectl aicr ([^\\s`\"'$)]+)([^`\\n]*)")

// TestDocs_KubectlAicrCommandsAndFlagsExist: every `kubectl aicr <command>` in the docs is a
// command of the plugin's root command, every flag written after it is one that command
// accepts, and operations.md shows every command.
func TestDocs_KubectlAicrCommandsAndFlagsExist(t *testing.T) {
	t.Parallel()
	root := cli.NewRootCommand(cli.NewOptions(genericiooptions.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}))
	root.InitDefaultHelpCmd()
	commands := map[string]*cobra.Command{}
	for _, c := range root.Commands() {
		commands[c.Name()] = c
		for _, a := range c.Aliases {
			commands[a] = c
		}
	}
	used := map[string]bool{}
	for _, page := range append(slices.Clone(pages), apiReference) {
		text := strings.ReplaceAll(read(t, page), "\\\n", " ")
		for _, m := range pluginCommand.FindAllStringSubmatch(text, -1) {
			cmd, ok := commands[m[1]]
			if !assert.True(t, ok, "%s: `kubectl aicr %s` is not a command of the plugin", page, m[1]) {
				continue
			}
			used[cmd.Name()] = true
			for _, flag := range flagsOf(m[2]) {
				assert.True(t, hasFlag(cmd, flag), "%s: `kubectl aicr %s` has no flag %s", page, m[1], flag)
			}
		}
	}
	ops := read(t, "operations.md")
	for name := range commands {
		if name != "help" {
			assert.Contains(t, ops, "kubectl aicr "+name, "operations.md shows kubectl aicr %s", name)
		}
	}
	assert.NotEmpty(t, used)
}

// flagsOf returns the flags of a command line's rest, up to a comment, pipe or list operator.
func flagsOf(rest string) []string {
	var out []string
	for _, tok := range strings.Fields(rest) {
		if tok == "#" || tok == "|" || tok == "&&" || tok == "||" || tok == ";" {
			break
		}
		if strings.HasPrefix(tok, "-") && len(tok) > 1 {
			name, _, _ := strings.Cut(tok, "=")
			out = append(out, name)
		}
	}
	return out
}

// hasFlag reports whether cmd accepts flag ("--name" or "-n"), its own or inherited.
func hasFlag(cmd *cobra.Command, flag string) bool {
	if name, ok := strings.CutPrefix(flag, "--"); ok {
		return cmd.Flag(name) != nil
	}
	short := strings.TrimPrefix(flag, "-")
	if len(short) != 1 {
		return false
	}
	for c := cmd; c != nil; c = c.Parent() {
		for _, fs := range []*pflag.FlagSet{c.Flags(), c.PersistentFlags()} {
			if fs.ShorthandLookup(short) != nil {
				return true
			}
		}
	}
	return false
}

// TestDocs_NameEveryChartAdmissionPolicy: the trust model and the AdmissionPolicyMissing
// section name exactly the policies whose absence stalls the operator.
func TestDocs_NameEveryChartAdmissionPolicy(t *testing.T) {
	t.Parallel()
	trust := sectionBody(t, "operations.md", "Trust model")
	missing := sectionBody(t, "troubleshooting.md", string(domain.StallAdmissionPolicyMissing))
	policy := regexp.MustCompile(`aicr-operator-[a-z-]+`)
	for name, body := range map[string]string{"operations.md trust model": trust, "troubleshooting.md AdmissionPolicyMissing": missing} {
		for _, p := range shared.ChartAdmissionPolicies {
			assert.Contains(t, body, "`"+p+"`", "%s names %s", name, p)
		}
		for _, p := range policy.FindAllString(body, -1) {
			assert.Contains(t, shared.ChartAdmissionPolicies, p, "%s names %s, which the operator does not check", name, p)
		}
	}
}

func sectionBody(t *testing.T, page, title string) string {
	t.Helper()
	for _, s := range sections(read(t, page)) {
		if s.title == title {
			return s.body
		}
	}
	require.Failf(t, "missing section", "%s has no section %q", page, title)
	return ""
}

// operatorKey matches operator.aicr.run/<key>, also escaped for jsonpath (operator\.aicr\.run/).
var operatorKey = regexp.MustCompile(`operator\\?\.aicr\\?\.run/([a-z0-9-]+)`)

// TestDocs_OperatorKeysExist: every operator.aicr.run/ label, annotation or finalizer the pages
// name is one the API defines, and the request annotations of CR-11 are documented.
func TestDocs_OperatorKeysExist(t *testing.T) {
	t.Parallel()
	known := map[string]bool{aicrv1alpha1.Prefix + "v1alpha1": true} // the API version, not a key
	for _, k := range []string{
		aicrv1alpha1.LabelRole, aicrv1alpha1.LabelSchemaVersion, aicrv1alpha1.LabelRuntimeUID,
		aicrv1alpha1.LabelTransition, aicrv1alpha1.LabelOutcome, aicrv1alpha1.LabelManagedBy,
		aicrv1alpha1.LabelResolvedBy, aicrv1alpha1.AnnotationFromPlanDigest, aicrv1alpha1.AnnotationPlanDigest,
		aicrv1alpha1.AnnotationRelease, aicrv1alpha1.AnnotationRuntimeUID, aicrv1alpha1.AnnotationPlanGraph,
		aicrv1alpha1.AnnotationSequence, aicrv1alpha1.AnnotationStartingInventorySize,
		aicrv1alpha1.AnnotationOutcomeMessage, aicrv1alpha1.AnnotationContentDigest, aicrv1alpha1.AnnotationSeal, aicrv1alpha1.AnnotationEvidence,
		aicrv1alpha1.AnnotationEvidenceSeal,
		aicrv1alpha1.AnnotationResolveRequestedAt, aicrv1alpha1.AnnotationRetryRequestedAt, aicrv1alpha1.FinalizerCleanup,
	} {
		known[k] = true
	}
	for _, page := range pages {
		for _, m := range operatorKey.FindAllStringSubmatch(read(t, page), -1) {
			assert.True(t, known[aicrv1alpha1.Prefix+m[1]], "%s names %s, which the API does not define", page, m[0])
		}
	}
	ops := read(t, "operations.md")
	for _, k := range []string{aicrv1alpha1.AnnotationRetryRequestedAt, aicrv1alpha1.AnnotationResolveRequestedAt} {
		assert.Contains(t, ops, "kubectl annotate clusterruntime cluster --overwrite \\\n  "+k+"=", "operations.md shows how to set %s", k)
	}
}

var (
	mdLink   = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	slugDrop = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// slug is GitHub's anchor of a heading.
func slug(title string) string {
	return strings.ReplaceAll(slugDrop.ReplaceAllString(strings.ToLower(title), ""), " ", "-")
}

// TestDocs_LinksResolve: every relative link of the pages names a file that exists and, within
// docs/, an anchor that one of its headings produces.
func TestDocs_LinksResolve(t *testing.T) {
	t.Parallel()
	for _, page := range pages {
		for _, m := range mdLink.FindAllStringSubmatch(read(t, page), -1) {
			target := m[1]
			if strings.Contains(target, "://") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			if file == "" {
				file = page
			}
			if _, err := os.Stat(file); !assert.NoError(t, err, "%s links to %s", page, target) {
				continue
			}
			if anchor == "" || filepath.Dir(file) != "." {
				continue
			}
			var anchors []string
			for _, s := range sections(read(t, file)) {
				anchors = append(anchors, slug(s.title))
			}
			assert.Contains(t, anchors, anchor, "%s links to %s, which has no such heading", page, target)
		}
	}
}

// statement is one IAM policy statement; Action and Resource may be a string or a list.
type statement struct {
	Sid         string          `json:"Sid"`
	Effect      string          `json:"Effect"`
	Action      json.RawMessage `json:"Action"`
	NotAction   json.RawMessage `json:"NotAction"`
	Resource    json.RawMessage `json:"Resource"`
	NotResource json.RawMessage `json:"NotResource"`
	Principal   json.RawMessage `json:"Principal"`
	Condition   json.RawMessage `json:"Condition"`
}

type iamPolicy struct {
	Version   string      `json:"Version"`
	Statement []statement `json:"Statement"`
}

func stringsOf(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	if len(raw) == 0 {
		return nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var many []string
	require.NoError(t, json.Unmarshal(raw, &many), "%s is neither a string nor a list of strings", raw)
	return many
}

var fencedJSON = regexp.MustCompile("(?s)```json\n(.*?)```")

// ecrActions are what the operator does in the runtime registry (adapters/oci): the token, and
// push and pull under the prefix; CreateRepository is ECR's create-on-push check.
var (
	ecrRequired = []string{
		"ecr:GetAuthorizationToken", "ecr:BatchCheckLayerAvailability", "ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer",
		"ecr:InitiateLayerUpload", "ecr:UploadLayerPart", "ecr:CompleteLayerUpload", "ecr:PutImage",
	}
	ecrAllowed   = append(slices.Clone(ecrRequired), "ecr:CreateRepository")
	repoResource = regexp.MustCompile(`^arn:aws:ecr:<region>:<account>:repository/([a-z0-9][a-z0-9._/-]*)/\*$`)
)

// TestInstallEKS_IAMPolicyIsLeastPrivilege: every JSON block of install-eks.md is a valid IAM
// policy document of Version 2012-10-17 without a wildcard action; the one ECR policy that pushes
// grants exactly what the operator does, GetAuthorizationToken alone on "*" and everything else
// under the one repository prefix that registry.repository and the creation template use; the
// one that does not is the pull role's, which only reads under that prefix (checkPullPolicy).
func TestInstallEKS_IAMPolicyIsLeastPrivilege(t *testing.T) {
	t.Parallel()
	text := read(t, "install-eks.md")
	blocks := fencedJSON.FindAllStringSubmatch(text, -1)
	require.NotEmpty(t, blocks)
	ecrPolicies, pullPolicies := 0, 0
	for _, b := range blocks {
		var p iamPolicy
		dec := json.NewDecoder(strings.NewReader(b[1]))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(&p), "install-eks.md JSON block:\n%s", b[1])
		assert.Equal(t, "2012-10-17", p.Version)
		require.NotEmpty(t, p.Statement)
		isECR, pushes := false, false
		for _, s := range p.Statement {
			assert.Equal(t, "Allow", s.Effect)
			assert.Empty(t, s.NotAction, "NotAction")
			assert.Empty(t, s.NotResource, "NotResource")
			assert.NotEqual(t, `"*"`, string(s.Principal), "a wildcard principal")
			for _, a := range stringsOf(t, s.Action) {
				assert.NotContains(t, a, "*", "wildcard action %q", a)
				isECR = isECR || strings.HasPrefix(a, "ecr:")
				pushes = pushes || a == "ecr:PutImage"
			}
		}
		switch {
		case pushes:
			ecrPolicies++
			checkECRPolicy(t, text, p)
		case isECR:
			pullPolicies++
			checkPullPolicy(t, text, p)
		}
	}
	assert.Equal(t, 1, ecrPolicies, "install-eks.md shows exactly one ECR permissions policy of the operator")
	assert.Equal(t, 1, pullPolicies, "install-eks.md shows exactly one pull-only policy, Argo CD's pull role's")
}

func checkECRPolicy(t *testing.T, text string, p iamPolicy) {
	t.Helper()
	granted := map[string]bool{}
	prefixes := map[string]bool{}
	for _, s := range p.Statement {
		actions, resources := stringsOf(t, s.Action), stringsOf(t, s.Resource)
		require.NotEmpty(t, resources, "statement %s has no Resource", s.Sid)
		for _, a := range actions {
			assert.Contains(t, ecrAllowed, a, "action %s is more than the operator does", a)
			granted[a] = true
		}
		if slices.Contains(actions, "ecr:GetAuthorizationToken") {
			assert.Equal(t, []string{"ecr:GetAuthorizationToken"}, actions, "GetAuthorizationToken stands alone")
			assert.Equal(t, []string{"*"}, resources, "GetAuthorizationToken has no resource of its own")
			continue
		}
		for _, r := range resources {
			m := repoResource.FindStringSubmatch(r)
			if assert.NotNil(t, m, "resource %s is not under a repository prefix", r) {
				prefixes[m[1]] = true
			}
		}
	}
	for _, a := range ecrRequired {
		assert.True(t, granted[a], "the policy lacks %s", a)
	}
	require.Len(t, prefixes, 1, "one repository prefix")
	for prefix := range prefixes {
		assert.Contains(t, text, "repository: oci://<account>.dkr.ecr.<region>.amazonaws.com/"+prefix+"\n")
		assert.Contains(t, text, "--prefix "+prefix+" ")
	}
}

// TestAPIReference_IsGenerated: api-reference.md is crd-ref-docs' output for both kinds, and the
// script that generates it pins the generator's version.
func TestAPIReference_IsGenerated(t *testing.T) {
	t.Parallel()
	ref := read(t, apiReference)
	assert.True(t, strings.HasPrefix(ref, "# API Reference\n"))
	assert.Contains(t, ref, "## "+aicrv1alpha1.GroupVersion.String()+"\n")
	for _, kind := range []string{"ClusterRuntime", "ClusterRuntimeSpec", "RuntimeRollout", "RuntimeRolloutSpec"} {
		assert.Contains(t, ref, "\n#### "+kind+"\n")
	}
	script := read(t, filepath.Join("..", "test", "tools", "api-docs.sh"))
	assert.Regexp(t, `(?m)^CRD_REF_DOCS_VERSION=v\d+\.\d+\.\d+$`, script)
	assert.Contains(t, script, "--config=docs/crd-ref-docs.yaml")
}
