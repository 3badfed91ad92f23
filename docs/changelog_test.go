package docs_test

import (
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

var (
	// releaseHeading is a release's heading in CHANGELOG.md: "## [X]" and, for a version,
	// " - YYYY-MM-DD".
	releaseHeading = regexp.MustCompile(`^## \[([^\]]+)\](?: - (.+))?$`)
	// changelogLinkRef is a link reference definition at the end of CHANGELOG.md.
	changelogLinkRef = regexp.MustCompile(`(?m)^\[([^\]]+)\]: \S+$`)
)

// changelogRelease is one "## [X]" section of CHANGELOG.md.
type changelogRelease struct {
	name, date string
}

// changelogReleases returns the "## " headings of CHANGELOG.md in order; a "## " heading of
// another form fails the test.
func changelogReleases(t *testing.T, text string) []changelogRelease {
	t.Helper()
	var out []changelogRelease
	for _, s := range sections(text) {
		if s.level != 2 {
			continue
		}
		m := releaseHeading.FindStringSubmatch("## " + s.title)
		if assert.NotNil(t, m, "CHANGELOG.md heading %q is not \"## [X]\" or \"## [X] - YYYY-MM-DD\"", s.title) {
			out = append(out, changelogRelease{name: m[1], date: m[2]})
		}
	}
	return out
}

// TestChangelog_NamesTheChartVersionsInOrder: CHANGELOG.md starts with "## [Unreleased]", then
// has one "## [X] - YYYY-MM-DD" heading per release, newest first (descending SemVer, dates
// never rising), among them the chart's version and appVersion; each heading has its link
// reference.
func TestChangelog_NamesTheChartVersionsInOrder(t *testing.T) {
	t.Parallel()
	text := read(t, filepath.Join("..", "CHANGELOG.md"))
	var chart struct {
		Version    string `json:"version"`
		AppVersion string `json:"appVersion"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(read(t, filepath.Join("..", "charts", "aicr-operator", "Chart.yaml"))), &chart))
	require.NotEmpty(t, chart.Version)
	require.NotEmpty(t, chart.AppVersion)

	releases := changelogReleases(t, text)
	require.NotEmpty(t, releases)
	assert.Equal(t, changelogRelease{name: "Unreleased"}, releases[0], "the first heading is ## [Unreleased]")
	var (
		names    []string
		previous *semver.Version
		lastDate time.Time
	)
	for _, r := range releases[1:] {
		names = append(names, r.name)
		v, err := semver.StrictNewVersion(r.name)
		if !assert.NoError(t, err, "## [%s] is not a SemVer version", r.name) {
			continue
		}
		date, err := time.Parse(time.DateOnly, r.date)
		if assert.NoError(t, err, "## [%s] has no ISO date (YYYY-MM-DD): %q", r.name, r.date) {
			assert.True(t, lastDate.IsZero() || !date.After(lastDate), "## [%s] - %s is dated after the release above it", r.name, r.date)
			lastDate = date
		}
		if previous != nil {
			assert.True(t, v.LessThan(previous), "## [%s] comes after ## [%s]: releases go newest first", r.name, previous.Original())
		}
		previous = v
	}
	assert.Contains(t, names, chart.Version, "CHANGELOG.md has a ## [%s] heading for the chart's version", chart.Version)
	assert.Contains(t, names, chart.AppVersion, "CHANGELOG.md has a ## [%s] heading for the chart's appVersion", chart.AppVersion)

	var refs []string
	for _, m := range changelogLinkRef.FindAllStringSubmatch(text, -1) {
		refs = append(refs, m[1])
	}
	for _, r := range releases {
		assert.Contains(t, refs, r.name, "## [%s] has a link reference [%s]: <url>", r.name, r.name)
	}
}
