package domain

import "github.com/nvidia/aicr-operator/ports"

// ApprovalRequired decides whether a transition needs an approver (RO-8).
// Decision (the product's documents leave the exact rule open): a transition needs
// approval when any step
//   - removes or adopts a release (data-plane impact, not re-creatable by a rollback),
//   - changes CustomResourceDefinitions,
//   - upgrades a release without a "safe" upgrade-check verdict (manual,
//     blocked, unknown, or no assessment at all: AICR's coverage is low, so
//     silence is not safety),
//   - changes a release's values in a way the verdict does not cover (ValuesChange:
//     overrides or placement changed them, a plan records no render flags, or no
//     chart version changed): upgrade-check judges versions, never values, so a
//     "safe" verdict does not hide an image repository or privilege an override sets,
//   - installs a release with overrides that may reach it (ValuesChange), unless the
//     runtime waives that for its initial install,
//   - or, on an initial install, is anything other than Install or Verify.
//
// Install and Verify steps, and Upgrades assessed "safe" whose values change only as
// AICR renders the new version, roll out unattended.
func ApprovalRequired(initial bool, steps []Step) bool {
	for _, s := range steps {
		switch {
		case s.Operation == OpRemove, s.Operation == OpAdopt, s.ChangesCRDs, s.ValuesChange != "":
			return true
		case initial && s.Operation != OpInstall && s.Operation != OpVerify:
			return true
		case s.Operation == OpUpgrade && s.Assessment != ports.VerdictSafe:
			return true
		}
	}
	return false
}
