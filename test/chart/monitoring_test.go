package chart_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/domain"
)

// controllerRuntimeFamilies are the prefixes of the metrics controller-runtime and client-go
// register in the same registry (with the Go runtime and process collectors); every other
// family there is the operator's.
var controllerRuntimeFamilies = []string{
	"controller_runtime_", "workqueue_", "rest_client_", "certwatcher_", "leader_election_", "go_", "process_",
}

var fqName = regexp.MustCompile(`fqName: "([^"]+)"`)

// exportedMetrics returns the name of every metric the operator registers (NewMetrics), from
// the descriptors of each of its collectors, whether or not it has a sample yet.
func exportedMetrics(t *testing.T) map[string]bool {
	t.Helper()
	m := reflect.ValueOf(*shared.NewMetrics())
	names := map[string]bool{}
	for i := range m.NumField() {
		c, ok := m.Field(i).Interface().(prometheus.Collector)
		require.True(t, ok, "Metrics.%s is a collector", m.Type().Field(i).Name)
		descs := make(chan *prometheus.Desc, 16)
		c.Describe(descs)
		close(descs)
		for d := range descs {
			match := fqName.FindStringSubmatch(d.String())
			require.NotNil(t, match, "%s", d)
			names[match[1]] = true
		}
	}
	require.NotEmpty(t, names)
	return names
}

// promqlKeywords are PromQL words that are not metric names: operators, modifiers and the
// aggregations, which may be followed by a label list before their parenthesis.
var promqlKeywords = map[string]bool{
	"and": true, "or": true, "unless": true, "bool": true, "offset": true, "inf": true, "nan": true,
	"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true,
	"sum": true, "min": true, "max": true, "avg": true, "group": true, "stddev": true, "stdvar": true, "count": true,
	"count_values": true, "bottomk": true, "topk": true, "quantile": true, "limitk": true, "limit_ratio": true,
}

// promqlLabelLists are the keywords followed by a list of label names.
var promqlLabelLists = map[string]bool{
	"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true,
}

// promqlMetricNames returns the metric names a PromQL expression selects: every identifier but
// function names, keywords, label names (in matchers and label lists), numbers, durations and
// strings. It is a tokenizer, not a parser, which is enough for names.
func promqlMetricNames(expr string) []string {
	var names []string
	isIdentStart := func(c byte) bool { return c == '_' || c == ':' || (c|0x20 >= 'a' && c|0x20 <= 'z') }
	isIdent := func(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }
	skipTo := func(i int, closing byte) int { // past the matching closing bracket, strings skipped
		for ; i < len(expr) && expr[i] != closing; i++ {
			if q := expr[i]; q == '"' || q == '\'' || q == '`' {
				for i++; i < len(expr) && expr[i] != q; i++ {
					if expr[i] == '\\' {
						i++
					}
				}
			}
		}
		return i + 1
	}
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			i = skipTo(i+1, c)
		case c == '{':
			i = skipTo(i+1, '}')
		case c == '[':
			i = skipTo(i+1, ']')
		case c == '#':
			i = skipTo(i+1, '\n') - 1
		case c >= '0' && c <= '9' || c == '.':
			for i < len(expr) && (isIdent(expr[i]) || expr[i] == '.') {
				i++
			}
		case isIdentStart(c):
			start := i
			for i < len(expr) && isIdent(expr[i]) {
				i++
			}
			word := expr[start:i]
			next := i
			for next < len(expr) && (expr[next] == ' ' || expr[next] == '\n' || expr[next] == '\t') {
				next++
			}
			followedByParen := next < len(expr) && expr[next] == '('
			switch {
			case promqlLabelLists[strings.ToLower(word)] && followedByParen:
				i = skipTo(next+1, ')')
			case promqlKeywords[strings.ToLower(word)], followedByParen:
			default:
				names = append(names, word)
			}
		default:
			i++
		}
	}
	return names
}

func TestPromqlMetricNames(t *testing.T) {
	t.Parallel()
	cases := []struct {
		expr string
		want []string
	}{
		{`up`, []string{"up"}},
		{`max by (reason) (a{type="Stalled", reason!~"x|y"}) == 1`, []string{"a"}},
		{`sum by (c) (increase(b_total{r="f"}[30m])) > 0 unless on (c) sum(increase(b_total[1h])) > 0`, []string{"b_total", "b_total"}},
		{`histogram_quantile(0.95, sum by (le, op) (rate(h_bucket[$__rate_interval])))`, []string{"h_bucket"}},
		{`max(d) - time() < 7200 or e offset 5m`, []string{"d", "e"}},
		{`sum(x) without (pod) / ignoring(le) group_left(a) y`, []string{"x", "y"}},
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, c.want, promqlMetricNames(c.expr))
		})
	}
}

// family returns the metric family a name used in PromQL belongs to, when it is exported:
// itself, or the histogram a _bucket, _sum or _count series is of.
func family(exported map[string]bool, name string) (string, bool) {
	if exported[name] {
		return name, true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok && exported[base] {
			return base, true
		}
	}
	return "", false
}

// alertRules is monitoring/alerts.yaml.
type alertRules struct {
	Groups []struct {
		Name  string `json:"name"`
		Rules []struct {
			Alert       string            `json:"alert"`
			Expr        string            `json:"expr"`
			For         string            `json:"for"`
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
		} `json:"rules"`
	} `json:"groups"`
}

func readAlerts(t *testing.T) (alertRules, map[string]any) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(chartDir(), "monitoring", "alerts.yaml"))
	require.NoError(t, err)
	var rules alertRules
	require.NoError(t, yaml.UnmarshalStrict(raw, &rules))
	var generic map[string]any
	require.NoError(t, yaml.Unmarshal(raw, &generic))
	return rules, generic
}

// dashboardExprs returns every query of monitoring/dashboard.json by panel title.
func dashboardExprs(t *testing.T) map[string][]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(chartDir(), "monitoring", "dashboard.json"))
	require.NoError(t, err)
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	require.NoError(t, json.Unmarshal(raw, &dash))
	out := map[string][]string{}
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			require.NotEmpty(t, tg.Expr, "panel %q", p.Title)
			out[p.Title] = append(out[p.Title], tg.Expr)
		}
	}
	require.NotEmpty(t, out)
	return out
}

// TestOperatorMetricsAreNamedAndUsed reads every metric the operator exports (OPS-2): each name
// starts with aicr_operator_ and is used by the chart's dashboard or one of its alerts; the
// registry the manager serves holds nothing else but controller-runtime's own families.
func TestOperatorMetricsAreNamedAndUsed(t *testing.T) {
	t.Parallel()
	exported := exportedMetrics(t)
	used := map[string]bool{}
	rules, _ := readAlerts(t)
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			for _, n := range promqlMetricNames(r.Expr) {
				if f, ok := family(exported, n); ok {
					used[f] = true
				}
			}
		}
	}
	for _, exprs := range dashboardExprs(t) {
		for _, e := range exprs {
			for _, n := range promqlMetricNames(e) {
				if f, ok := family(exported, n); ok {
					used[f] = true
				}
			}
		}
	}
	for name := range exported {
		assert.True(t, strings.HasPrefix(name, shared.MetricPrefix), "%s starts with %s", name, shared.MetricPrefix)
		assert.True(t, used[name], "%s is used by the dashboard or an alert", name)
	}

	families, err := ctrlmetrics.Registry.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if !slicesHasPrefix(controllerRuntimeFamilies, f.GetName()) {
			assert.True(t, exported[f.GetName()], "%s in the manager's registry is one of the operator's metrics", f.GetName())
		}
	}
}

func slicesHasPrefix(prefixes []string, s string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// TestAlertedCountersStartAtZero: the counters alerts take the increase of exist at 0 before
// the first event, so increase() sees the first failure.
func TestAlertedCountersStartAtZero(t *testing.T) {
	t.Parallel()
	shared.NewMetrics()
	families, err := ctrlmetrics.Registry.Gather()
	require.NoError(t, err)
	series := map[string]bool{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			labels := make([]string, 0, len(m.GetLabel()))
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			sort.Strings(labels)
			series[f.GetName()+"{"+strings.Join(labels, ",")+"}"] = true
		}
	}
	for _, s := range []string{
		"aicr_operator_jobs_finished_total{result=failed,runner=resolver}",
		"aicr_operator_jobs_finished_total{result=failed,runner=validation}",
		"aicr_operator_registry_credential_refreshes_total{credential=pull,result=failure}",
		"aicr_operator_registry_credential_refreshes_total{credential=push,result=failure}",
		"aicr_operator_registry_credential_refreshes_total{credential=pull,result=success}",
		"aicr_operator_stalls_total{reason=RolloutFailed}",
		"aicr_operator_rollouts{phase=AwaitingApproval}",
	} {
		assert.True(t, series[s], "%s exists before its first event", s)
	}
}

// TestAlertsUseExportedMetrics parses every alert expression: each metric it selects is one
// the operator exports (after the rename to aicr_operator_), and every alert has a severity
// and a summary. The chart ships eight alerts.
func TestAlertsUseExportedMetrics(t *testing.T) {
	t.Parallel()
	exported := exportedMetrics(t)
	rules, _ := readAlerts(t)
	var alerts []string
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			alerts = append(alerts, r.Alert)
			names := promqlMetricNames(r.Expr)
			assert.NotEmpty(t, names, "%s selects a metric", r.Alert)
			for _, n := range names {
				_, ok := family(exported, n)
				assert.True(t, ok, "%s: %s is a metric the operator exports", r.Alert, n)
			}
			assert.Contains(t, []string{"info", "warning", "critical"}, r.Labels["severity"], r.Alert)
			assert.NotEmpty(t, r.Annotations["summary"], r.Alert)
			assert.NotEmpty(t, r.Annotations["description"], r.Alert)
		}
	}
	assert.ElementsMatch(t, []string{
		"AICROperatorAbsent", "AICRRuntimeStalled", "AICRRolloutAwaitingApproval", "AICRRolloutAwaitingApprovalNearDeadline",
		"AICRRolloutHeld", "AICRRolloutFailed", "AICRRegistryCredentialRefreshFailing", "AICRJobFailing",
	}, alerts)
	for title, exprs := range dashboardExprs(t) {
		for _, e := range exprs {
			for _, n := range promqlMetricNames(e) {
				_, ok := family(exported, n)
				assert.True(t, ok, "dashboard panel %q: %s is a metric the operator exports", title, n)
			}
		}
	}
}

// TestRenderMonitoring: the metrics Service is always rendered, its port named after the
// scheme; the ServiceMonitor, PrometheusRule and dashboard ConfigMap only when enabled, the
// ServiceMonitor sending the scraper's bearer token and skipping verification of the
// self-signed certificate when metrics are secure.
func TestRenderMonitoring(t *testing.T) {
	t.Parallel()
	objs, err := render(requiredValues())
	require.NoError(t, err)
	for _, kind := range []string{"ServiceMonitor", "PrometheusRule"} {
		assert.Nil(t, find(objs, kind, releaseNamespace, "aicr-operator"), "%s only when enabled", kind)
	}
	assert.Nil(t, find(objs, "ConfigMap", releaseNamespace, "aicr-operator-dashboard"), "dashboard only when enabled")
	svc := find(objs, "Service", releaseNamespace, "aicr-operator-metrics")
	require.NotNil(t, svc, "the metrics Service is always rendered")
	deploy := find(objs, "Deployment", releaseNamespace, "aicr-operator")
	require.NotNil(t, deploy)
	selector, _, _ := unstructured.NestedStringMap(svc.Object, "spec", "selector")
	podLabels, _, _ := unstructured.NestedStringMap(deploy.Object, "spec", "template", "metadata", "labels")
	for k, v := range selector {
		assert.Equal(t, v, podLabels[k], "the Service selects the operator's pods by %s", k)
	}

	cases := []struct {
		name   string
		secure bool
		port   string
		scheme string
	}{
		{"secure metrics", true, "https-metrics", "https"},
		{"plain metrics", false, "http-metrics", "http"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			v := everythingValues()
			require.NoError(t, unstructured.SetNestedField(v, c.secure, "operator", "metricsSecure"))
			objs, err := render(v)
			require.NoError(t, err)
			svc := find(objs, "Service", releaseNamespace, "aicr-operator-metrics")
			require.NotNil(t, svc)
			ports, _, _ := unstructured.NestedSlice(svc.Object, "spec", "ports")
			require.Len(t, ports, 1)
			assert.Equal(t, map[string]any{"name": c.port, "port": float64(8080), "targetPort": "metrics", "protocol": "TCP"}, ports[0])

			sm := find(objs, "ServiceMonitor", releaseNamespace, "aicr-operator")
			require.NotNil(t, sm)
			assert.Equal(t, "kube-prometheus-stack", sm.GetLabels()["release"], "extra labels for Prometheus's selector")
			match, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
			for k, want := range match {
				assert.Equal(t, want, svc.GetLabels()[k], "the ServiceMonitor selects the metrics Service by %s", k)
			}
			endpoints, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
			require.Len(t, endpoints, 1)
			ep, _ := endpoints[0].(map[string]any)
			assert.Equal(t, c.port, ep["port"])
			assert.Equal(t, c.scheme, ep["scheme"])
			if c.secure {
				assert.Equal(t, map[string]any{"type": "Bearer", "credentials": map[string]any{
					"name": "aicr-operator-metrics-scraper-token", "key": "token",
				}}, ep["authorization"], "the chart's scraper token by default")
				assert.Equal(t, map[string]any{"insecureSkipVerify": true}, ep["tlsConfig"],
					"a self-signed certificate cannot be verified")
			} else {
				assert.NotContains(t, ep, "authorization")
				assert.NotContains(t, ep, "tlsConfig")
			}
			assert.NotContains(t, ep, "bearerTokenFile", "deprecated by the Prometheus Operator")

			rule := find(objs, "PrometheusRule", releaseNamespace, "aicr-operator")
			require.NotNil(t, rule)
			_, alerts := readAlerts(t)
			spec, _, _ := unstructured.NestedMap(rule.Object, "spec")
			assert.Equal(t, alerts, spec, "the PrometheusRule carries monitoring/alerts.yaml")

			dash := find(objs, "ConfigMap", "monitoring", "aicr-operator-dashboard")
			require.NotNil(t, dash, "the dashboard goes to monitoring.grafanaDashboard.namespace")
			assert.Equal(t, "1", dash.GetLabels()["grafana_dashboard"])
			data, _, _ := unstructured.NestedStringMap(dash.Object, "data")
			raw, err := os.ReadFile(filepath.Join(chartDir(), "monitoring", "dashboard.json"))
			require.NoError(t, err)
			assert.JSONEq(t, string(raw), data["aicr-operator.json"])
		})
	}
}

// TestRenderPodDisruptionBudget: off by default; with several replicas one operator stays
// through a drain, with one the budget never blocks a drain.
func TestRenderPodDisruptionBudget(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		sets map[string]any
		want map[string]any // nil: no budget
	}{
		{"off by default", nil, nil},
		{"one replica never blocks a drain", map[string]any{"operator.podDisruptionBudget.enabled": true},
			map[string]any{"maxUnavailable": float64(1)}},
		{"two replicas keep one through a drain", map[string]any{"operator.podDisruptionBudget.enabled": true, "operator.replicas": 2},
			map[string]any{"minAvailable": float64(1)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			objs, err := render(withValues(c.sets))
			require.NoError(t, err)
			pdb := find(objs, "PodDisruptionBudget", releaseNamespace, "aicr-operator")
			if c.want == nil {
				assert.Nil(t, pdb)
				return
			}
			require.NotNil(t, pdb)
			spec, _, _ := unstructured.NestedMap(pdb.Object, "spec")
			selector, _, _ := unstructured.NestedStringMap(spec, "selector", "matchLabels")
			assert.Equal(t, map[string]string{"app.kubernetes.io/name": "aicr-operator", "app.kubernetes.io/instance": releaseName}, selector)
			delete(spec, "selector")
			assert.Equal(t, c.want, spec)
		})
	}
}

// runbookBase is where every alert's runbook_url points: a section of the troubleshooting page.
const runbookBase = "https://github.com/NVIDIA/aicr/blob/main/docs/troubleshooting.md#"

// githubAnchor is the anchor GitHub gives a Markdown heading: lower case, without punctuation
// but hyphens and underscores, spaces as hyphens.
func githubAnchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9'):
			b.WriteRune(r)
		}
	}
	return b.String()
}

var markdownHeading = regexp.MustCompile(`(?m)^#{2,3} (.+)$`)

// TestAlertsHaveRunbooksAndKeepTheCluster: every alert's runbook_url names a section of the
// troubleshooting page that exists (a reason-templated one, a section per reason), and every
// aggregation and match keeps the cluster label, so a Prometheus of many clusters tells them
// apart.
func TestAlertsHaveRunbooksAndKeepTheCluster(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(chartDir(), "..", "..", "docs", "troubleshooting.md"))
	require.NoError(t, err)
	anchors := map[string]bool{}
	for _, m := range markdownHeading.FindAllStringSubmatch(string(raw), -1) {
		anchors[githubAnchor(m[1])] = true
	}
	grouping := regexp.MustCompile(`\b(by|on|without|ignoring)\s*\(([^)]*)\)`)
	rules, _ := readAlerts(t)
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			url := r.Annotations["runbook_url"]
			require.True(t, strings.HasPrefix(url, runbookBase), "%s runbook_url %q", r.Alert, url)
			anchor := strings.TrimPrefix(url, runbookBase)
			if anchor != "{{ $labels.reason | toLower }}" {
				assert.True(t, anchors[anchor], "%s runbook_url names no troubleshooting section: %q", r.Alert, anchor)
				continue
			}
			for _, reason := range domain.StallReasons() {
				assert.True(t, anchors[strings.ToLower(string(reason))], "%s runbook_url of reason %s names no section", r.Alert, reason)
			}
		}
	}
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			for _, m := range grouping.FindAllStringSubmatch(r.Expr, -1) {
				assert.Contains(t, strings.Split(strings.ReplaceAll(m[2], " ", ""), ","), "cluster", "%s: %s", r.Alert, m[0])
			}
		}
	}
}

// TestEveryAlertHasRuleTests: test/alerts/rules_test.yaml, which `make test-alerts` runs with
// promtool, has for every alert a case where it fires and one where it stays quiet, and names
// no alert the rules do not have.
func TestEveryAlertHasRuleTests(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(chartDir(), "..", "..", "test", "alerts", "rules_test.yaml"))
	require.NoError(t, err)
	var cases struct {
		RuleFiles []string `json:"rule_files"`
		Tests     []struct {
			AlertRuleTest []struct {
				Alertname string           `json:"alertname"`
				ExpAlerts []map[string]any `json:"exp_alerts"`
			} `json:"alert_rule_test"`
		} `json:"tests"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &cases))
	assert.Equal(t, []string{"../../charts/aicr-operator/monitoring/alerts.yaml"}, cases.RuleFiles)
	fires, quiet := map[string]bool{}, map[string]bool{}
	for _, c := range cases.Tests {
		for _, a := range c.AlertRuleTest {
			if len(a.ExpAlerts) > 0 {
				fires[a.Alertname] = true
			} else {
				quiet[a.Alertname] = true
			}
		}
	}
	rules, _ := readAlerts(t)
	names := map[string]bool{}
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			names[r.Alert] = true
			assert.True(t, fires[r.Alert], "%s has no case where it fires", r.Alert)
			assert.True(t, quiet[r.Alert], "%s has no case where it stays quiet", r.Alert)
		}
	}
	for name := range fires {
		assert.True(t, names[name], "a case for an alert the rules do not have: %s", name)
	}
	for name := range quiet {
		assert.True(t, names[name], "a case for an alert the rules do not have: %s", name)
	}
}
