package domain

import (
	"fmt"
	"strconv"
	"strings"
)

// SupportedAICRRange is the AICR version range the operator accepts (PLAT-1).
const SupportedAICRRange = ">=1.0.0 <2.0.0"

// AICRVersionSupported reports whether version (with or without a leading
// "v") lies in SupportedAICRRange. Pre-releases of 1.0.0 and unparsable
// versions (including dev builds such as 0.0.0-dev) are unsupported.
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

// CheckAICRVersion stops on a Job that reports another AICR version than the
// pinned one (RES-5). A leading "v" is ignored on both sides.
func CheckAICRVersion(pinned, reported string) *Stall {
	if strings.TrimPrefix(pinned, "v") == strings.TrimPrefix(reported, "v") {
		return nil
	}
	return stallf(StallAICRVersionMismatch,
		fmt.Sprintf("AICR job reported version %q, the operator pins %q", reported, pinned))
}

func parseSemver(v string) (major, minor, patch int, pre string, ok bool) {
	v = strings.TrimPrefix(v, "v")
	if i := strings.IndexByte(v, '+'); i >= 0 {
		v = v[:i]
	}
	if i := strings.IndexByte(v, '-'); i >= 0 {
		v, pre = v[:i], v[i+1:]
		if pre == "" {
			return 0, 0, 0, "", false
		}
	}
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return 0, 0, 0, "", false
	}
	nums := make([]int, 3)
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || (len(p) > 1 && p[0] == '0') || strings.ContainsAny(p, "+-") {
			return 0, 0, 0, "", false
		}
		nums[i] = n
	}
	return nums[0], nums[1], nums[2], pre, true
}
