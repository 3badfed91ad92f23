package domain_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/domain"
)

// CheckTolerations refuses what AICR's toleration flags cannot express, before a bundle Job runs.
func TestCheckTolerations_WhatAICRCannotExpress(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   domain.Toleration
		want string
	}{
		{"every key for one effect", domain.Toleration{Operator: "Exists", Effect: "NoSchedule"},
			"placement.accelerated.tolerations[0]: AICR tolerates every key only for every effect"},
		{"tolerationSeconds", domain.Toleration{Key: "node.kubernetes.io/unreachable", Operator: "Exists", Effect: "NoExecute", Bounded: true},
			"placement.accelerated.tolerations[0]: AICR's toleration flags cannot carry tolerationSeconds"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := domain.CheckTolerations(map[string][]domain.Toleration{"accelerated": {tt.in}})
			require.NotNil(t, s)
			assert.Equal(t, domain.StallInvalidPlacement, s.Reason())
			assert.Contains(t, s.Message(), tt.want)
		})
	}
	assert.Nil(t, domain.CheckTolerations(map[string][]domain.Toleration{
		"system": {{Operator: "Exists"}, {Key: "dedicated", Value: "system"}, {Key: "gpu", Operator: "Exists", Effect: "NoSchedule"}},
	}), "every taint, a key of any effect and key:Effect render")
}
