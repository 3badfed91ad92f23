package domain

import "github.com/NVIDIA/aicr/ports"

// ApprovalRequired decides whether a transition needs an approver (RO-8): whether
// ApprovalReasons names any.
func ApprovalRequired(initial bool, steps []Step) bool {
	return len(ApprovalReasons(initial, steps)) > 0
}

// ApprovalReason is why one step needs an approver.
type ApprovalReason struct {
	// Release is the step's release ID.
	Release string `json:"release"`
	// Why is the rule the step meets, in words ("changes CRDs", "upgrade assessed manual").
	Why string `json:"why"`
}

// ApprovalReasons lists, step by step, why a transition needs an approver; none when it rolls
// out unattended.
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
//   - on an initial install, is anything other than Install or Verify,
//   - or is a DRA driver step after a GPU Operator upgrade, which waits for an approver's
//     acknowledgement that the kubelet plugin restarted (needsDRARestart).
//
// Install and Verify steps, and Upgrades assessed "safe" whose values change only as
// AICR renders the new version, roll out unattended.
func ApprovalReasons(initial bool, steps []Step) []ApprovalReason {
	var out []ApprovalReason
	for i, s := range steps {
		for _, why := range stepApprovalReasons(initial, s) {
			out = append(out, ApprovalReason{Release: s.Release.ID, Why: why})
		}
		if needsDRARestart(steps, i) {
			out = append(out, ApprovalReason{Release: s.Release.ID, Why: "waits for an acknowledgement: " +
				draRestartAcknowledgement})
		}
	}
	return out
}

// stepApprovalReasons is every rule of ApprovalReasons that s meets.
func stepApprovalReasons(initial bool, s Step) []string {
	var why []string
	switch s.Operation {
	case OpRemove:
		why = append(why, "removes the release")
	case OpAdopt:
		why = append(why, "adopts the release")
	case OpUpgrade:
		if s.Assessment != ports.VerdictSafe {
			why = append(why, "upgrade "+verdictText(s.Assessment))
		}
	case OpInstall, OpVerify:
	}
	if initial && s.Operation != OpInstall && s.Operation != OpVerify && s.Operation != OpRemove &&
		s.Operation != OpAdopt {
		why = append(why, "initial install: "+string(s.Operation)+" step")
	}
	if s.ChangesCRDs {
		why = append(why, "changes CRDs")
	}
	if s.ValuesChange != "" {
		why = append(why, s.ValuesChange)
	}
	return why
}

// verdictText names an upgrade-check verdict that is not "safe".
func verdictText(v ports.UpgradeVerdict) string {
	if v == "" {
		return "without an upgrade-check verdict"
	}
	return "assessed " + string(v)
}
