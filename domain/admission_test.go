package domain_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/NVIDIA/aicr/domain"
)

func TestAdmissionPolicyMissing_NoProblemNoStall(t *testing.T) {
	t.Parallel()
	assert.Nil(t, domain.AdmissionPolicyMissing(nil))
	s := domain.AdmissionPolicyMissing([]string{"a is missing", "b does not deny"})
	assert.Equal(t, domain.StallAdmissionPolicyMissing, s.Reason())
	assert.Contains(t, s.Message(), "a is missing; b does not deny")
	assert.Contains(t, s.Message(), "helm upgrade")
}
