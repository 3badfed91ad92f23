package domain

import (
	"encoding/json"
	"regexp"
	"strings"
)

// AICRExit is the classification of a finished AICR Job (RES-4).
type AICRExit struct {
	// Category is AICR's error category (InvalidRequest, NotFound, ...).
	Category string
	// Transient reports a failure to retry with backoff (unavailable, rate limited, canceled).
	Transient bool
	// Killed reports a container killed from outside AICR (exit code 137 or 143: the OOM
	// killer, an eviction, a drained node): run again a bounded number of times
	// (JobKillAttempts), then stall JobPodKilled.
	Killed bool
	// Stall is the Resolved reason for a terminal failure (nil when transient or successful).
	Stall *Stall
}

// unauthorizedRemedy is what to do when AICR's Job identity lacks a right: the chart grants
// exactly the rights each Job uses, so a missing one was removed or never installed.
const unauthorizedRemedy = "the Job's ServiceAccount lacks a right AICR uses: restore the chart's RBAC " +
	"(helm upgrade the aicr-operator release, see the chart README's RBAC section), then request a " +
	"resolution again (annotate the ClusterRuntime with operator.aicr.run/resolve-requested-at)"

var bracketCode = regexp.MustCompile(`\[([A-Z_]+)\]`)

// codeCategories maps AICR's structured error codes to exit codes (docs/design/aicr-cli.md section 4).
var codeCategories = map[string]int{
	"INVALID_REQUEST": 2, "METHOD_NOT_ALLOWED": 2, "CONFLICT": 2, "NOT_FOUND": 3, "UNAUTHORIZED": 4,
	"TIMEOUT": 5, "SERVICE_UNAVAILABLE": 6, "POLICY_FETCH": 6, "RATE_LIMIT_EXCEEDED": 7, "INTERNAL": 8,
}

// ClassifyAICRExit classifies a failed AICR Job from its exit code and AICR's
// last JSON "command failed" log line. The root cause (the last bracketed code
// in the line's "error") wins over the outer exit code, which can hide an
// input error behind INTERNAL. Codes 6, 7 and 9 are transient; 137 and 143 (SIGKILL,
// SIGTERM: AICR did not exit on its own) are Killed; 2, 3, 4, 5 and 8 (and any other non-zero
// code) stall with the matching AICR* reason.
func ClassifyAICRExit(exitCode int, failureLog string) AICRExit {
	switch exitCode {
	case 0:
		return AICRExit{Category: "Success"}
	case exitSIGKILL, exitSIGTERM:
		return AICRExit{Category: "Killed", Killed: true}
	}
	code, msg := exitCode, ""
	if root, m := rootCause(failureLog); root != 0 {
		code, msg = root, m
	}
	reasons := map[int]struct {
		category string
		reason   StallReason
	}{
		2: {"InvalidRequest", StallAICRInvalidRequest}, 3: {"NotFound", StallAICRNotFound},
		4: {"Unauthorized", StallAICRUnauthorized}, 5: {"Timeout", StallAICRTimeout},
		8: {"Internal", StallAICRInternal},
	}
	switch code {
	case 6:
		return AICRExit{Category: "Unavailable", Transient: true}
	case 7:
		return AICRExit{Category: "RateLimited", Transient: true}
	case 9:
		return AICRExit{Category: "Canceled", Transient: true}
	}
	r, ok := reasons[code]
	if !ok {
		r = reasons[8]
	}
	if msg == "" {
		msg = "aicr exited with code " + itoa(exitCode)
	}
	if r.reason == StallAICRUnauthorized {
		msg += "; " + unauthorizedRemedy
	}
	return AICRExit{Category: r.category, Stall: stallf(r.reason, msg)}
}

// rootCause returns the exit code of the last bracketed code in the log
// line's error field, and the error text.
func rootCause(line string) (int, string) {
	var rec struct {
		Msg      string `json:"msg"`
		Error    string `json:"error"`
		ExitCode int    `json:"exitCode"`
	}
	if json.Unmarshal([]byte(strings.TrimSpace(line)), &rec) != nil || rec.Msg != "command failed" {
		return 0, ""
	}
	codes := bracketCode.FindAllStringSubmatch(rec.Error, -1)
	for i := len(codes) - 1; i >= 0; i-- {
		if c, ok := codeCategories[codes[i][1]]; ok {
			return c, rec.Error
		}
	}
	return rec.ExitCode, rec.Error
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
