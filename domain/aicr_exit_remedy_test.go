package domain_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/domain"
)

// TestClassifyAICRExit_UnauthorizedSaysWhatToDo: an AICR Job denied a right stalls with AICR's
// message and what to do (restore the chart's RBAC, resolve again).
func TestClassifyAICRExit_UnauthorizedSaysWhatToDo(t *testing.T) {
	t.Parallel()
	line := `{"msg":"command failed","exitCode":4,"error":"[UNAUTHORIZED] snapshot: pods is forbidden"}`
	for _, tt := range []struct {
		name string
		code int
		log  string
		want string
	}{
		{"with AICR's failure line", 4, line, "[UNAUTHORIZED] snapshot: pods is forbidden"},
		{"without one", 4, "", "aicr exited with code 4"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := domain.ClassifyAICRExit(tt.code, tt.log)
			require.NotNil(t, got.Stall)
			assert.Equal(t, domain.StallAICRUnauthorized, got.Stall.Reason())
			assert.Contains(t, got.Stall.Message(), tt.want)
			assert.Contains(t, got.Stall.Message(), "restore the chart's RBAC")
			assert.Contains(t, got.Stall.Message(), "resolve-requested-at")
		})
	}
}
