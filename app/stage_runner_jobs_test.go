package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"

	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/mocks"
	"github.com/NVIDIA/aicr/ports"
)

// TestStageRunner_JobsFailingAsJobsDo covers the Jobs that fail as Jobs do, with strict
// JobRunner and Clock doubles: a pod that waits to run stalls JobPodNotRunning past the bound
// with its own reason and message (one case per waiting reason); a run killed from outside
// AICR (one case per kill kind) runs again as <name>-<n> writing to its own output after a
// backoff, and the last of domain.JobKillAttempts killed runs keeps every run and stalls
// JobPodKilled; a run its deadline stopped is kept and stalls AICRTimeout; a Job being
// deleted is waited for, never read as running nor deleted again, and stalls JobUndeletable
// once its deletion takes longer than the bound (RES-4, RES-7).
func TestStageRunner_JobsFailingAsJobsDo(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ref2, ref3 := ports.JobRef{Name: ref.Name + "-2"}, ports.JobRef{Name: ref.Name + "-3"}
	stage := recipeStage
	stage.Args = []string{"recipe", "-o", "cm://jobs/" + ref.Name + "-output"}
	outputRefs := func(j *mocks.MockJobRunnerMockRecorder, job string) {
		j.OutputRef(ref.Name).Return("cm://jobs/" + ref.Name + "-output")
		j.OutputRef(job).Return("cm://jobs/" + job + "-output")
	}
	waitingFor := func(reason, message string, d time.Duration) ports.JobStatus {
		return ports.JobStatus{State: ports.JobRunning, Waiting: &ports.JobWaiting{Reason: reason, Message: message, Since: now.Add(-d)}}
	}
	deleting := func(st ports.JobStatus, d time.Duration) ports.JobStatus {
		st.DeletingSince = now.Add(-d)
		return st
	}
	killed := func(code int, by string) ports.JobStatus {
		return ports.JobStatus{State: ports.JobFailed, ExitCode: code, Killed: by, FinishedAt: now.Add(-time.Hour)}
	}
	tests := []struct {
		name   string
		expect func(j *mocks.MockJobRunnerMockRecorder)
		// want checks the run.
		files    bool
		waiting  string
		stall    domain.StallReason
		contains []string
		events   []string
	}{
		{name: "ImagePullBackOff past the bound stalls", stall: domain.StallJobPodNotRunning,
			contains: []string{"ImagePullBackOff", `Back-off pulling image "aicr"`, "jobs.imagePullSecrets", "resolve-requested-at"},
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Status(gomock.Any(), ref).Return(waitingFor("ImagePullBackOff", `Back-off pulling image "aicr"`, domain.JobPodWaitBound+domain.ClockSkewTolerance), nil)
			}},
		{name: "ErrImagePull past the bound stalls", stall: domain.StallJobPodNotRunning,
			contains: []string{"ErrImagePull", "pull access denied", "jobs.imagePullSecrets"},
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Status(gomock.Any(), ref).Return(waitingFor("ErrImagePull", "pull access denied", time.Hour), nil)
			}},
		{name: "Unschedulable past the bound stalls", stall: domain.StallJobPodNotRunning,
			contains: []string{"Unschedulable", "0/3 nodes are available", "jobs.nodeSelector", "jobs.tolerations"},
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Status(gomock.Any(), ref).Return(waitingFor("Unschedulable", "0/3 nodes are available", time.Hour), nil)
			}},
		{name: "CreateContainerConfigError past the bound stalls", stall: domain.StallJobPodNotRunning,
			contains: []string{"CreateContainerConfigError", `secret "s" not found`},
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Status(gomock.Any(), ref).Return(waitingFor("CreateContainerConfigError", `secret "s" not found`, time.Hour), nil)
			}},
		{name: "a pod waiting within the bound waits", waiting: "running",
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Status(gomock.Any(), ref).Return(waitingFor("ImagePullBackOff", "", domain.JobPodWaitBound+domain.ClockSkewTolerance-time.Second), nil)
			}},
		{name: "exit 137 runs again as the second run once the backoff passed", waiting: ref2.Name + " running",
			events: []string{domain.EventResolveStageStarted.String()},
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Status(gomock.Any(), ref).Return(killed(137, ""), nil)
				j.Status(gomock.Any(), ref2).Return(ports.JobStatus{}, ports.ErrJobNotFound)
				outputRefs(j, ref2.Name)
				j.Start(gomock.Any(), gomock.Cond(func(s ports.JobSpec) bool {
					return s.Name == ref2.Name && s.Args[2] == "cm://jobs/"+ref2.Name+"-output"
				})).Return(ref2, nil)
			}},
		{name: "exit 143 waits out the backoff before the second run", waiting: "run 2 of 3 starts after a 30s backoff",
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				st := killed(143, "")
				st.FinishedAt = now.Add(-10 * time.Second)
				j.Status(gomock.Any(), ref).Return(st, nil)
				j.Status(gomock.Any(), ref2).Return(ports.JobStatus{}, ports.ErrJobNotFound)
			}},
		{name: "an evicted then OOMKilled stage starts its third run", waiting: ref3.Name + " running",
			events: []string{domain.EventResolveStageStarted.String()},
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Status(gomock.Any(), ref).Return(killed(0, "Evicted"), nil)
				j.Status(gomock.Any(), ref2).Return(killed(137, "OOMKilled"), nil)
				j.Status(gomock.Any(), ref3).Return(ports.JobStatus{}, ports.ErrJobNotFound)
				outputRefs(j, ref3.Name)
				j.Start(gomock.Any(), gomock.Cond(func(s ports.JobSpec) bool { return s.Name == ref3.Name })).Return(ref3, nil)
			}},
		{name: "the last killed run keeps every run and stalls JobPodKilled", stall: domain.StallJobPodKilled,
			contains: []string{ref3.Name, "3 times", "DisruptionTarget (EvictionByEvictionAPI)", "jobs.resources.limits.memory"},
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Status(gomock.Any(), ref).Return(killed(137, ""), nil)
				j.Status(gomock.Any(), ref2).Return(killed(143, ""), nil)
				j.Status(gomock.Any(), ref3).Return(killed(143, "DisruptionTarget (EvictionByEvictionAPI)"), nil)
				for _, r := range []ports.JobRef{ref, ref2, ref3} {
					j.Retain(gomock.Any(), r).Return(nil)
				}
			}},
		{name: "a second run that succeeded is kept and deleted", files: true, events: []string{domain.EventResolveStageSucceeded.String()},
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Status(gomock.Any(), ref).Return(killed(137, "OOMKilled"), nil)
				j.Status(gomock.Any(), ref2).Return(ports.JobStatus{State: ports.JobSucceeded, AICRVersion: "1.1.0"}, nil)
				j.Output(gomock.Any(), ref2).Return(result, nil)
				j.Keep(gomock.Any(), ref2, kept).Return(nil)
				j.Delete(gomock.Any(), ref2).Return(nil)
			}},
		{name: "a running Job being deleted waits for it to go", waiting: "is being deleted",
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Status(gomock.Any(), ref).Return(deleting(ports.JobStatus{State: ports.JobRunning}, domain.JobDeletionBound+domain.ClockSkewTolerance-time.Second), nil)
			}},
		{name: "a Job deleted longer than the bound ago stalls JobUndeletable", stall: domain.StallJobUndeletable,
			contains: []string{ref.Name, "finalizer", "batch.kubernetes.io/job-name"},
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Status(gomock.Any(), ref).Return(deleting(ports.JobStatus{State: ports.JobRunning}, domain.JobDeletionBound+domain.ClockSkewTolerance), nil)
			}},
		{name: "a transiently failed Job being deleted is not deleted again but waited for", waiting: "is being deleted",
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Status(gomock.Any(), ref).Return(deleting(ports.JobStatus{State: ports.JobFailed, ExitCode: 6}, time.Minute), nil)
			}},
		{name: "a transiently failed Job held past the bound stalls JobUndeletable", stall: domain.StallJobUndeletable,
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Status(gomock.Any(), ref).Return(deleting(ports.JobStatus{State: ports.JobFailed, ExitCode: 6}, time.Hour), nil)
			}},
		{name: "a run its deadline stopped is kept and stalls AICRTimeout", stall: domain.StallAICRTimeout,
			contains: []string{"jobs.activeDeadlineSeconds"},
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Status(gomock.Any(), ref).Return(ports.JobStatus{State: ports.JobFailed, ExitCode: 143, DeadlineExceeded: true}, nil)
				j.Retain(gomock.Any(), ref).Return(nil)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctrl := gomock.NewController(t)
			jobs, clock := mocks.NewMockJobRunner(ctrl), mocks.NewMockClock(ctrl)
			clock.EXPECT().Now().Return(now).AnyTimes()
			jobs.EXPECT().Kept(gomock.Any(), kept).Return(nil, nil)
			tt.expect(jobs.EXPECT())
			run := app.StageRunner{Jobs: jobs, Image: image, AICRVersion: "1.1.0", Clock: clock}.Run(context.Background(), runtimeUID, stage)
			assert.NoError(t, run.Transient)
			assertStageRun(t, run, tt.files, tt.waiting, tt.stall, tt.contains)
			var reasons []string
			for _, e := range run.Events {
				reasons = append(reasons, e.Reason.String())
			}
			assert.Equal(t, tt.events, reasons)
		})
	}
}

// TestDeleteStageJobs: once a stage's result is recorded every run of it goes (RES-7).
func TestDeleteStageJobs(t *testing.T) {
	t.Parallel()
	jobs := mocks.NewMockJobRunner(gomock.NewController(t))
	for _, name := range []string{ref.Name, ref.Name + "-2", ref.Name + "-3"} {
		jobs.EXPECT().Delete(gomock.Any(), ports.JobRef{Name: name}).Return(nil)
	}
	require.NoError(t, app.DeleteStageJobs(context.Background(), jobs, ref.Name))
}

// assertStageRun checks what a stage run returned: files or none, the waiting message (a part
// of it, "" for none) and the stall (its reason and parts of its message, "" for none).
func assertStageRun(t *testing.T, run app.StageRun, files bool, waiting string, stall domain.StallReason, contains []string) {
	t.Helper()
	assert.Equal(t, files, run.Files != nil, "files")
	if waiting != "" {
		assert.Contains(t, run.Waiting, waiting)
	} else {
		assert.Empty(t, run.Waiting)
	}
	if stall == "" {
		assert.Nil(t, run.Stall)
		return
	}
	require.NotNil(t, run.Stall)
	assert.Equal(t, stall, run.Stall.Reason())
	for _, part := range contains {
		assert.Contains(t, run.Stall.Message(), part)
	}
}
