package domain

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/NVIDIA/aicr/ports"
)

// SupportedAICRRange is the AICR version range the operator accepts (PLAT-1), as the
// Masterminds/semver constraint Helm's semverCompare takes: a pre-release of 1.0.0 is below it,
// a pre-release of 2.0.0 above it. The chart checks aicr.version against the same range (its
// values.schema.json pattern and its semverCompare), the operator at start (--aicr-version)
// and on every Job result; test/chart runs one table of versions through all of them.
const SupportedAICRRange = ">=1.0.0, <2.0.0-0"

// AICRVersionSupported reports whether version (with or without a leading
// "v") lies in SupportedAICRRange. Pre-releases of 1.0.0 and unparsable
// versions (including dev builds such as 0.0.0-dev) are unsupported.
//
// The domain imports only the standard library and ports (depguard), so this is the one
// version check not written with github.com/Masterminds/semver/v3; version_test.go proves it
// gives the library's verdict for every version of its table, valid or not.
func AICRVersionSupported(version string) bool {
	major, minor, patch, pre, ok := parseSemver(version)
	if !ok || major != 1 {
		return false
	}
	return minor != 0 || patch != 0 || pre == ""
}

// CheckAICRArtifact refuses an artifact rendered by an AICR version outside
// SupportedAICRRange (RES-5).
func CheckAICRArtifact(what, version string) *Stall {
	if AICRVersionSupported(version) {
		return nil
	}
	return stallf(StallAICRArtifactUnsupported,
		fmt.Sprintf("%s rendered by AICR %q is outside the supported range %s", what, version, SupportedAICRRange))
}

// OutputRecordsVersion reports whether the output of a Job of kind records the AICR version
// that ran it, so the Job's own result is checked against the pinned one: AICR v1 writes
// metadata.version into a snapshot or a recipe and results.tool.version into validate's CTRF
// report. A bundle records its version in bundle-info.yaml, which the resolver checks when it
// reads the bundle; the upgrade-check report has no version field, so that Job's version is
// the pinned image's, the only image the platform's admission lets an AICR Job run.
func OutputRecordsVersion(kind ports.JobKind) bool {
	return kind != ports.JobUpgradeCheck && kind != ports.JobBundle
}

// ErrOutputVersionMissing reports the output of a Job whose kind records the AICR version
// (OutputRecordsVersion) that reports none: AICR v1 always writes it, so the output was not
// read as AICR wrote it (empty, truncated, another document) and counts as lost.
var ErrOutputVersionMissing = errors.New("its output records no AICR version")

// JudgeOutputVersion judges the AICR version a succeeded Job's readable output reports against
// the pinned one (RES-5): nil for a kind whose output records none; ErrOutputVersionMissing
// when the kind records one and the output reports none, so the Job runs again (a lost output
// is never a mismatch); the AICRVersionMismatch stall only for a reported version other than
// the pinned one.
func JudgeOutputVersion(kind ports.JobKind, pinned, reported string) (*Stall, error) {
	switch {
	case !OutputRecordsVersion(kind):
		return nil, nil
	case reported == "":
		return nil, ErrOutputVersionMissing
	}
	return CheckAICRVersion(pinned, reported), nil
}

// CheckAICRVersion stops on a Job that reports another AICR version than the
// pinned one (RES-5). A leading "v" is ignored on both sides.
func CheckAICRVersion(pinned, reported string) *Stall {
	if strings.TrimPrefix(pinned, "v") == strings.TrimPrefix(reported, "v") {
		return nil
	}
	return stallf(StallAICRVersionMismatch,
		fmt.Sprintf("AICR job reported version %q, the operator pins %q", reported, pinned))
}

// parseSemver parses a SemVer 2.0.0 version (https://semver.org/#backusnaur-form-grammar-for-valid-semver-versions)
// with an optional leading "v", as Masterminds/semver's StrictNewVersion does. Build metadata is
// checked and dropped.
func parseSemver(v string) (major, minor, patch uint64, pre string, ok bool) {
	v = strings.TrimPrefix(v, "v")
	if i := strings.IndexByte(v, '+'); i >= 0 {
		if !identifiers(v[i+1:], false) {
			return 0, 0, 0, "", false
		}
		v = v[:i]
	}
	if i := strings.IndexByte(v, '-'); i >= 0 {
		if v, pre = v[:i], v[i+1:]; !identifiers(pre, true) {
			return 0, 0, 0, "", false
		}
	}
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return 0, 0, 0, "", false
	}
	var nums [3]uint64
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil || !numeric(p) || (len(p) > 1 && p[0] == '0') {
			return 0, 0, 0, "", false
		}
		nums[i] = n
	}
	return nums[0], nums[1], nums[2], pre, true
}

// identifiers reports whether s is a dot-separated list of non-empty [0-9A-Za-z-] identifiers;
// in a pre-release a numeric identifier has no leading zero.
func identifiers(s string, prerelease bool) bool {
	for _, id := range strings.Split(s, ".") {
		if id == "" || strings.Trim(id, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-") != "" {
			return false
		}
		if prerelease && numeric(id) && len(id) > 1 && id[0] == '0' {
			return false
		}
	}
	return true
}

// numeric reports whether s is made of ASCII digits only.
func numeric(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}
