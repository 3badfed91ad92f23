package domain_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/domain"
)

func TestClassifyAICRExit(t *testing.T) {
	t.Parallel()
	for code, category := range map[int]string{6: "Unavailable", 7: "RateLimited", 9: "Canceled"} {
		got := domain.ClassifyAICRExit(code, "")
		assert.True(t, got.Transient, code)
		assert.Nil(t, got.Stall, code)
		assert.Equal(t, category, got.Category)
	}
	assert.Equal(t, "Success", domain.ClassifyAICRExit(0, "").Category)
	nf := domain.ClassifyAICRExit(2, `{"msg":"command failed","exitCode":2,"error":"[INVALID_REQUEST] bundle: [NOT_FOUND] recipe file not found"}`)
	require.NotNil(t, nf.Stall)
	assert.Equal(t, domain.StallAICRNotFound, nf.Stall.Reason(), "the root cause wins")
	assert.Nil(t, domain.CheckAICRVersion("v1.1.0", "1.1.0"))
}
