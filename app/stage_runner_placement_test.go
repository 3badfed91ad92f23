package app_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.uber.org/mock/gomock"

	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/mocks"
	"github.com/NVIDIA/aicr/ports"
)

// TestStageRunner_StartsTheJobWhereTheStageIsPlaced: the stage's placement (the snapshot
// agent's accelerated group) reaches the JobSpec the runner starts.
func TestStageRunner_StartsTheJobWhereTheStageIsPlaced(t *testing.T) {
	t.Parallel()
	placement := &ports.JobPlacement{NodeSelector: map[string]string{"pool": "gpu"},
		Tolerations: []ports.JobToleration{{Key: "nvidia.com/gpu", Operator: "Exists", Effect: "NoSchedule"}}}
	stage := app.Stage{Kind: ports.JobSnapshot, Name: "aicr-snapshot-0123456789abcdef", Args: []string{"snapshot"}, Placement: placement}
	jobs := mocks.NewMockJobRunner(gomock.NewController(t))
	jobRef := ports.JobRef{Name: stage.Name}
	jobs.EXPECT().Status(gomock.Any(), jobRef).Return(ports.JobStatus{}, ports.ErrJobNotFound)
	jobs.EXPECT().Start(gomock.Any(), gomock.Cond(func(s ports.JobSpec) bool {
		return s.Kind == ports.JobSnapshot && s.Placement == placement
	})).Return(jobRef, nil)
	run := app.StageRunner{Jobs: jobs, Image: image, AICRVersion: "1.1.0"}.Run(context.Background(), runtimeUID, stage)
	assert.NotEmpty(t, run.Waiting, "the placed Job started")
}
