package domain_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// supportedAICRConstraint is domain.SupportedAICRRange as a Masterminds/semver constraint: the
// upper bound "<2.0.0-0" also keeps 2.0.0's pre-releases out and lets the group include
// pre-releases, so 1.2.0-rc.1 is in and 1.0.0-rc.1 (below 1.0.0) is out.
const supportedAICRConstraint = domain.SupportedAICRRange

// supportedAICR is supportedAICRConstraint, parsed; a constraint that does not parse fails
// every test of the package.
var supportedAICR = func() *semver.Constraints {
	c, err := semver.NewConstraint(supportedAICRConstraint)
	if err != nil {
		panic(err)
	}
	return c
}()

// mastermindsSupports is the library's verdict on version: parsed strictly after an optional
// leading "v", then checked against supportedAICRConstraint.
func mastermindsSupports(t *testing.T, version string) bool {
	t.Helper()
	v, err := semver.StrictNewVersion(strings.TrimPrefix(version, "v"))
	return err == nil && supportedAICR.Check(v)
}

// TestAICRVersionSupported_Range: the supported range, bound by bound, agrees with
// Masterminds/semver on each case (PLAT-1).
func TestAICRVersionSupported_Range(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		version string
		want    bool
	}{
		{"1.0.0", true},
		{"v1.0.0", true},
		{"1.0.1", true},
		{"1.1.0", true},
		{"1.99.3", true},
		{"1.2.0-rc.1", true},
		{"1.0.1-alpha", true},
		{"1.0.0+build.5", true},
		{"1.2.0-rc.1+sha.abc", true},
		{"1.18446744073709551615.0", true},
		{"0.11.1", false},
		{"0.0.0-dev", false},
		{"1.0.0-rc.1", false},
		{"1.0.0-0", false},
		{"2.0.0", false},
		{"2.0.0-rc.1", false},
		{"2.0.0-0", false},
		{"10.0.0", false},
		{"", false},
		{"v", false},
		{"1.2", false},
		{"1", false},
		{"1.2.3.4", false},
		{"01.2.3", false},
		{"1.02.3", false},
		{"1.2.03", false},
		{"1.2.3-", false},
		{"1.2.3-01", false},
		{"1.2.3-rc..1", false},
		{"1.2.3-rc_1", false},
		{"1.2.3+", false},
		{"1.2.3+b..c", false},
		{"1.2.3+b+c", false},
		{"vv1.2.3", false},
		{"V1.2.3", false},
		{" 1.2.3", false},
		{"1.2.-3", false},
		{"1.18446744073709551616.0", false},
	} {
		t.Run(tt.version, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, domain.AICRVersionSupported(tt.version), "domain")
			assert.Equal(t, tt.want, mastermindsSupports(t, tt.version), "Masterminds/semver")
		})
	}
}

// TestAICRVersionSupported_AgreesWithMasterminds: on every version built from valid and invalid
// parts, the domain's stdlib check gives Masterminds/semver's verdict.
func TestAICRVersionSupported_AgreesWithMasterminds(t *testing.T) {
	t.Parallel()
	prefixes := []string{"", "v"}
	numbers := []string{"0", "1", "2", "01", "10", "x", ""}
	pres := []string{"", "-rc.1", "-0", "-01", "-rc.01", "-alpha-1", "-rc..1", "-", "-rc_1", "-1.2.3"}
	builds := []string{"", "+b", "+b.01", "+b-c", "+", "+b..c", "+b+c", "+b_c"}
	checked := 0
	for _, prefix := range prefixes {
		for _, major := range numbers {
			for _, minor := range numbers {
				for _, patch := range numbers {
					for _, pre := range pres {
						for _, build := range builds {
							v := prefix + major + "." + minor + "." + patch + pre + build
							require.Equal(t, mastermindsSupports(t, v), domain.AICRVersionSupported(v), v)
							checked++
						}
					}
				}
			}
		}
	}
	assert.Equal(t, 2*7*7*7*10*8, checked)
}

// A snapshot, a recipe and a CTRF report record the AICR version that wrote them; a bundle
// records it in bundle-info.yaml, the upgrade-check report nowhere.
func TestOutputRecordsVersion(t *testing.T) {
	for _, kind := range []ports.JobKind{ports.JobSnapshot, ports.JobRecipe, ports.JobValidate} {
		assert.True(t, domain.OutputRecordsVersion(kind), kind)
	}
	for _, kind := range []ports.JobKind{ports.JobBundle, ports.JobUpgradeCheck} {
		assert.False(t, domain.OutputRecordsVersion(kind), kind)
	}
}

// TestJudgeOutputVersion: a readable output's reported version stalls AICRVersionMismatch only
// when it names another version; an output of a kind that records one and reports none is
// lost (the Job runs again), never a mismatch; a kind recording none passes (RES-5).
func TestJudgeOutputVersion(t *testing.T) {
	tests := []struct {
		name     string
		kind     ports.JobKind
		reported string
		stall    domain.StallReason
		lost     bool
	}{
		{name: "the pinned version", kind: ports.JobRecipe, reported: "v1.1.0"},
		{name: "another version", kind: ports.JobSnapshot, reported: "1.2.0", stall: domain.StallAICRVersionMismatch},
		{name: "no version of a recipe", kind: ports.JobRecipe, lost: true},
		{name: "no version of a CTRF report", kind: ports.JobValidate, lost: true},
		{name: "no version of an upgrade-check report", kind: ports.JobUpgradeCheck},
		{name: "no version of a bundle", kind: ports.JobBundle},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stall, err := domain.JudgeOutputVersion(tt.kind, "1.1.0", tt.reported)
			assert.Equal(t, tt.lost, errors.Is(err, domain.ErrOutputVersionMissing), "lost: %v", err)
			if tt.stall == "" {
				assert.Nil(t, stall)
				return
			}
			require.NotNil(t, stall)
			assert.Equal(t, tt.stall, stall.Reason())
		})
	}
}
