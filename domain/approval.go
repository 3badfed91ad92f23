package domain

import "github.com/nvidia/aicr-operator/ports"

// ApprovalRequired decides whether a transition needs an approver (RO-8).
// Decision (REQUIREMENTS.md is silent on the exact rule): a transition needs
// approval when any step
//   - removes or adopts a release (data-plane impact, not re-creatable by a rollback),
//   - changes CustomResourceDefinitions,
//   - upgrades a release without a "safe" upgrade-check verdict (manual,
//     blocked, unknown, or no assessment at all: AICR's coverage is low, so
//     silence is not safety),
//   - or, on an initial install, is anything other than Install or Verify.
//
// Install and Verify steps, and Upgrades assessed "safe", roll out unattended.
func ApprovalRequired(initial bool, steps []Step) bool {
	for _, s := range steps {
		switch {
		case s.Operation == OpRemove, s.Operation == OpAdopt, s.ChangesCRDs:
			return true
		case initial && s.Operation != OpInstall && s.Operation != OpVerify:
			return true
		case s.Operation == OpUpgrade && s.Assessment != ports.VerdictSafe:
			return true
		}
	}
	return false
}
