package domain

import (
	"fmt"
	"strings"
)

// AdmissionPolicyMissing is the stall of an installation whose admission policies do not all
// enforce (nil when problems is empty). The operator trusts plan ConfigMaps, kept results, Job
// outputs, approvals, outcome labels and status only because the chart's policies let nobody
// else write them; without one it reads nothing back and writes nothing until the chart is
// upgraded again (helm upgrade recreates what is missing).
func AdmissionPolicyMissing(problems []string) *Stall {
	if len(problems) == 0 {
		return nil
	}
	return stallf(StallAdmissionPolicyMissing, fmt.Sprintf(
		"the chart's admission policies do not all enforce (%s): nothing moves until helm upgrade of the aicr-operator chart restores them",
		strings.Join(problems, "; ")))
}
