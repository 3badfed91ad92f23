package domain_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

func TestApprovalReasons(t *testing.T) {
	t.Parallel()
	gpu := ports.ReleaseRef{ID: "gpu-operator", Namespace: "gpu-operator"}
	step := func(op domain.Operation, v ports.UpgradeVerdict) domain.Step {
		return domain.Step{Release: gpu, Operation: op, Assessment: v}
	}
	withCRDs := step(domain.OpInstall, "")
	withCRDs.ChangesCRDs = true
	overridden := step(domain.OpUpgrade, ports.VerdictSafe)
	overridden.ValuesChange = "values changed by overrides: gpu-operator:driver.repository"
	tests := []struct {
		name    string
		initial bool
		steps   []domain.Step
		want    []string
	}{
		{"install only", true, []domain.Step{step(domain.OpInstall, "")}, nil},
		{"verify and safe upgrade", false, []domain.Step{step(domain.OpVerify, ""), step(domain.OpUpgrade, ports.VerdictSafe)}, nil},
		{"unassessed upgrade", false, []domain.Step{step(domain.OpUpgrade, "")}, []string{"upgrade without an upgrade-check verdict"}},
		{"unknown upgrade", false, []domain.Step{step(domain.OpUpgrade, ports.VerdictUnknown)}, []string{"upgrade assessed unknown"}},
		{"upgrade on an initial install", true, []domain.Step{step(domain.OpUpgrade, ports.VerdictSafe)},
			[]string{"initial install: Upgrade step"}},
		{"remove", false, []domain.Step{step(domain.OpRemove, "")}, []string{"removes the release"}},
		{"adopt", true, []domain.Step{step(domain.OpAdopt, "")}, []string{"adopts the release"}},
		{"crd change", false, []domain.Step{withCRDs}, []string{"changes CRDs"}},
		{"safe upgrade whose values an override changed", false, []domain.Step{overridden},
			[]string{"values changed by overrides: gpu-operator:driver.repository"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var want []domain.ApprovalReason
			for _, why := range tt.want {
				want = append(want, domain.ApprovalReason{Release: "gpu-operator", Why: why})
			}
			assert.Equal(t, want, domain.ApprovalReasons(tt.initial, tt.steps))
			assert.Equal(t, len(want) > 0, domain.ApprovalRequired(tt.initial, tt.steps))
		})
	}
}
