package app_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"

	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/mocks"
	"github.com/NVIDIA/aicr/ports"
)

// TestStageRunner_LostOutput: a succeeded Job whose output is lost (missing, holding nothing
// the Job wrote, not the Job's own, or without the AICR version its kind records) is never
// judged by the version it cannot show: the stage runs again at once as <name>-<n> writing to
// its own output, and the last of domain.JobKillAttempts runs in a row that lost its output
// keeps every run and stalls JobOutputLost with the cause and the remedy. Only a version a
// readable output reports stalls AICRVersionMismatch (RES-4, RES-5, RES-7).
func TestStageRunner_LostOutput(t *testing.T) {
	t.Parallel()
	ref2, ref3 := ports.JobRef{Name: ref.Name + "-2"}, ports.JobRef{Name: ref.Name + "-3"}
	stage := recipeStage
	stage.Args = []string{"recipe", "-o", "cm://jobs/" + ref.Name + "-output"}
	succeeded := ports.JobStatus{State: ports.JobSucceeded, AICRVersion: "1.1.0"}
	unversioned := ports.JobStatus{State: ports.JobSucceeded}
	startsRun2 := func(j *mocks.MockJobRunnerMockRecorder) {
		j.Status(gomock.Any(), ref2).Return(ports.JobStatus{}, ports.ErrJobNotFound)
		j.OutputRef(ref.Name).Return("cm://jobs/" + ref.Name + "-output")
		j.OutputRef(ref2.Name).Return("cm://jobs/" + ref2.Name + "-output")
		j.Start(gomock.Any(), gomock.Cond(func(s ports.JobSpec) bool {
			return s.Name == ref2.Name && s.Args[2] == "cm://jobs/"+ref2.Name+"-output"
		})).Return(ref2, nil)
	}
	tests := []struct {
		name   string
		expect func(j *mocks.MockJobRunnerMockRecorder)
		// want checks the run.
		files    bool
		waiting  string
		stall    domain.StallReason
		contains []string
		event    string
	}{
		{name: "a missing or empty output runs again as the second run", waiting: ref2.Name + " running",
			event: "run 2 of 3, the output of the run before was lost: " + ports.ErrOutputLost.Error(),
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Status(gomock.Any(), ref).Return(unversioned, nil)
				j.Output(gomock.Any(), ref).Return(nil, ports.ErrOutputLost)
				startsRun2(j)
			}},
		{name: "an output that is not the Job's own runs again as the second run", waiting: ref2.Name + " running",
			event: "the output of the run before was lost: " + ports.ErrUntrustedOutput.Error(),
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Status(gomock.Any(), ref).Return(unversioned, nil)
				j.Output(gomock.Any(), ref).Return(nil, ports.ErrUntrustedOutput)
				startsRun2(j)
			}},
		{name: "a recipe recording no AICR version runs again, no version stall", waiting: ref2.Name + " running",
			event: "the output of the run before was lost: aicr recipe job " + ref.Name + ": " + domain.ErrOutputVersionMissing.Error(),
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Status(gomock.Any(), ref).Return(unversioned, nil)
				j.Output(gomock.Any(), ref).Return(result, nil)
				startsRun2(j)
			}},
		{name: "a second run after a lost output is used", files: true,
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Status(gomock.Any(), ref).Return(unversioned, nil)
				j.Output(gomock.Any(), ref).Return(nil, ports.ErrOutputLost)
				j.Status(gomock.Any(), ref2).Return(succeeded, nil)
				j.Output(gomock.Any(), ref2).Return(result, nil)
				j.Keep(gomock.Any(), ref2, kept).Return(nil)
				j.Delete(gomock.Any(), ref2).Return(nil)
			}},
		{name: "a readable output of another version stalls AICRVersionMismatch", stall: domain.StallAICRVersionMismatch,
			contains: []string{`"1.2.0"`, `"1.1.0"`},
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Status(gomock.Any(), ref).Return(unversioned, nil)
				j.Output(gomock.Any(), ref).Return(nil, ports.ErrOutputLost)
				j.Status(gomock.Any(), ref2).Return(ports.JobStatus{State: ports.JobSucceeded, AICRVersion: "1.2.0"}, nil)
				j.Output(gomock.Any(), ref2).Return(result, nil)
			}},
		{name: "the third lost output in a row keeps every run and stalls JobOutputLost", stall: domain.StallJobOutputLost,
			contains: []string{ref3.Name, "3 times in a row", ports.ErrOutputLost.Error(), "-output", "resolve-requested-at"},
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Status(gomock.Any(), ref).Return(unversioned, nil)
				j.Output(gomock.Any(), ref).Return(nil, ports.ErrOutputLost)
				j.Status(gomock.Any(), ref2).Return(unversioned, nil)
				j.Output(gomock.Any(), ref2).Return(result, nil)
				j.Status(gomock.Any(), ref3).Return(unversioned, nil)
				j.Output(gomock.Any(), ref3).Return(nil, ports.ErrOutputLost)
				for _, r := range []ports.JobRef{ref, ref2, ref3} {
					j.Retain(gomock.Any(), r).Return(nil)
				}
			}},
		{name: "a killed run then a lost output counts both", stall: domain.StallJobOutputLost,
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Status(gomock.Any(), ref).Return(ports.JobStatus{State: ports.JobFailed, Killed: "OOMKilled"}, nil)
				j.Status(gomock.Any(), ref2).Return(unversioned, nil)
				j.Output(gomock.Any(), ref2).Return(nil, ports.ErrUntrustedOutput)
				j.Status(gomock.Any(), ref3).Return(unversioned, nil)
				j.Output(gomock.Any(), ref3).Return(nil, ports.ErrOutputLost)
				for _, r := range []ports.JobRef{ref, ref2, ref3} {
					j.Retain(gomock.Any(), r).Return(nil)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctrl := gomock.NewController(t)
			jobs := mocks.NewMockJobRunner(ctrl)
			jobs.EXPECT().Kept(gomock.Any(), kept).Return(nil, nil)
			tt.expect(jobs.EXPECT())
			run := app.StageRunner{Jobs: jobs, Image: image, AICRVersion: "1.1.0", Clock: mocks.NewMockClock(ctrl)}.
				Run(context.Background(), runtimeUID, stage)
			require.NoError(t, run.Transient)
			assertStageRun(t, run, tt.files, tt.waiting, tt.stall, tt.contains)
			if tt.event != "" {
				require.NotEmpty(t, run.Events)
				e := run.Events[0]
				assert.True(t, e.Warning)
				assert.Equal(t, domain.EventResolveStageStarted, e.Reason)
				assert.Contains(t, e.Message, tt.event)
			}
		})
	}
}
