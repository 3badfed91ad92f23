package app_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"

	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/mocks"
	"github.com/NVIDIA/aicr/ports"
)

const (
	runtimeUID = "6f1c9d2e-1111-4a5b-9c3d-000000000001"
	image      = "registry.example.com/nvidia/aicr:v1.1.0@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
)

var (
	recipeStage = app.Stage{Kind: ports.JobRecipe, Name: "aicr-recipe-0123456789abcdef", Args: []string{"recipe"},
		KeepRole: "recipe"}
	ref      = ports.JobRef{Name: recipeStage.Name}
	kept     = ports.KeptResult{Name: recipeStage.Name, Role: "recipe", RuntimeUID: runtimeUID}
	result   = fstest.MapFS{ports.JobArtifactFile: {Data: []byte("kind: RecipeResult\n")}}
	errFlaky = errors.New("connection reset by peer")
)

// TestStageRunner_Run covers every way a stage run ends (RES-1, RES-4, RES-5, RES-7) with a
// strict JobRunner double: each case expects exactly the calls it makes.
func TestStageRunner_Run(t *testing.T) {
	t.Parallel()
	succeeded := ports.JobStatus{State: ports.JobSucceeded, AICRVersion: "1.1.0"}
	tests := []struct {
		name   string
		expect func(j *mocks.MockJobRunnerMockRecorder)
		// want checks the run.
		files     bool
		waiting   bool
		stall     domain.StallReason
		transient string
		events    []string
	}{
		{name: "a kept result is reused without a Job", files: true,
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Kept(gomock.Any(), kept).Return(result, nil)
				noRunsLeft(j, 1)
			}},
		{name: "a kept result deletes the succeeded run's Job a stopped operator left, not a killed run's", files: true,
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Kept(gomock.Any(), kept).Return(result, nil)
				j.Status(gomock.Any(), ref).Return(ports.JobStatus{State: ports.JobFailed}, nil)
				j.Status(gomock.Any(), secondRun).Return(succeeded, nil)
				j.Output(gomock.Any(), secondRun).Return(result, nil)
				j.Delete(gomock.Any(), secondRun).Return(nil)
				noRunsLeft(j, 3)
			}},
		{name: "a kept result leaves a run that lost its output to its TTL", files: true,
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Kept(gomock.Any(), kept).Return(result, nil)
				j.Status(gomock.Any(), ref).Return(succeeded, nil)
				j.Output(gomock.Any(), ref).Return(nil, ports.ErrOutputLost)
				noRunsLeft(j, 2)
			}},
		{name: "a kept result leaves a Job being deleted to go", files: true,
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Kept(gomock.Any(), kept).Return(result, nil)
				j.Status(gomock.Any(), ref).Return(ports.JobStatus{State: ports.JobSucceeded, DeletingSince: time.Unix(1, 0)}, nil)
				noRunsLeft(j, 2)
			}},
		{name: "a kept result whose left Job cannot be deleted is transient", transient: errFlaky.Error(),
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Kept(gomock.Any(), kept).Return(result, nil)
				j.Status(gomock.Any(), ref).Return(succeeded, nil)
				j.Output(gomock.Any(), ref).Return(result, nil)
				j.Delete(gomock.Any(), ref).Return(errFlaky)
			}},
		{name: "a kept result that does not verify is ignored and the Job starts", waiting: true,
			events: []string{domain.EventKeptResultIgnored.String(), domain.EventResolveStageStarted.String()},
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Kept(gomock.Any(), kept).Return(nil, ports.ErrUntrustedOutput)
				j.Status(gomock.Any(), ref).Return(ports.JobStatus{}, ports.ErrJobNotFound)
				j.Start(gomock.Any(), gomock.Cond(func(s ports.JobSpec) bool {
					return s.Name == recipeStage.Name && s.Image == image && s.Owner.RuntimeUID == runtimeUID
				})).Return(ref, nil)
			}},
		{name: "a running Job waits", waiting: true,
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Kept(gomock.Any(), kept).Return(nil, nil)
				j.Status(gomock.Any(), ref).Return(ports.JobStatus{State: ports.JobRunning}, nil)
			}},
		{name: "a succeeded Job is kept and deleted", files: true, events: []string{domain.EventResolveStageSucceeded.String()},
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Kept(gomock.Any(), kept).Return(nil, nil)
				j.Status(gomock.Any(), ref).Return(succeeded, nil)
				j.Output(gomock.Any(), ref).Return(result, nil)
				j.Keep(gomock.Any(), ref, kept).Return(nil)
				j.Delete(gomock.Any(), ref).Return(nil)
			}},
		{name: "another AICR version stalls", stall: domain.StallAICRVersionMismatch,
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Kept(gomock.Any(), kept).Return(nil, nil)
				j.Status(gomock.Any(), ref).Return(ports.JobStatus{State: ports.JobSucceeded, AICRVersion: "1.2.0"}, nil)
				j.Output(gomock.Any(), ref).Return(result, nil)
			}},
		{name: "something in the way of the kept result stalls ForeignObject", stall: domain.StallForeignObject,
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Kept(gomock.Any(), kept).Return(nil, nil)
				j.Status(gomock.Any(), ref).Return(succeeded, nil)
				j.Output(gomock.Any(), ref).Return(result, nil)
				j.Keep(gomock.Any(), ref, kept).Return(ports.ErrForeignObject)
			}},
		{name: "a transient AICR exit deletes the Job for a retry", transient: "aicr recipe job aicr-recipe-0123456789abcdef",
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Kept(gomock.Any(), kept).Return(nil, nil)
				j.Status(gomock.Any(), ref).Return(ports.JobStatus{State: ports.JobFailed, ExitCode: 6}, nil)
				j.Delete(gomock.Any(), ref).Return(nil)
			}},
		{name: "a terminal AICR exit retains the Job and stalls with AICR's category", stall: domain.StallAICRInvalidRequest,
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Kept(gomock.Any(), kept).Return(nil, nil)
				j.Status(gomock.Any(), ref).Return(ports.JobStatus{State: ports.JobFailed, ExitCode: 2}, nil)
				j.Retain(gomock.Any(), ref).Return(nil)
			}},
		{name: "a runner error is transient", transient: errFlaky.Error(),
			expect: func(j *mocks.MockJobRunnerMockRecorder) {
				j.Kept(gomock.Any(), kept).Return(nil, nil)
				j.Status(gomock.Any(), ref).Return(ports.JobStatus{}, errFlaky)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			jobs := mocks.NewMockJobRunner(gomock.NewController(t))
			tt.expect(jobs.EXPECT())
			run := app.StageRunner{Jobs: jobs, Image: image, AICRVersion: "1.1.0"}.Run(context.Background(), runtimeUID, recipeStage)
			assert.Equal(t, tt.files, run.Files != nil, "files")
			assert.Equal(t, tt.waiting, run.Waiting != "", "waiting: %q", run.Waiting)
			if tt.stall != "" {
				require.NotNil(t, run.Stall)
				assert.Equal(t, tt.stall, run.Stall.Reason())
			} else {
				assert.Nil(t, run.Stall)
			}
			if tt.transient != "" {
				require.Error(t, run.Transient)
				assert.Contains(t, run.Transient.Error(), tt.transient)
			} else {
				assert.NoError(t, run.Transient)
			}
			var reasons []string
			for _, e := range run.Events {
				reasons = append(reasons, e.Reason.String())
			}
			assert.Equal(t, tt.events, reasons)
		})
	}
}

// secondRun is the Job of the recipe stage's second run, after a kill.
var secondRun = ports.JobRef{Name: recipeStage.Name + "-2"}

// noRunsLeft expects the lookups of the recipe stage's runs from run from on, none of which
// has a Job.
func noRunsLeft(j *mocks.MockJobRunnerMockRecorder, from int) {
	for n := from; n <= domain.JobKillAttempts; n++ {
		name := recipeStage.Name
		if n > 1 {
			name += "-" + strconv.Itoa(n)
		}
		j.Status(gomock.Any(), ports.JobRef{Name: name}).Return(ports.JobStatus{}, ports.ErrJobNotFound)
	}
}

// TestStageRunner_BundlePushedToARegistry: a bundle stage pushing to a registry starts its Job
// with the run-scoped credential (RES-8), and its succeeded Job is used without the Job-level
// version check: the caller checks the version bundle-info.yaml records (RES-5).
func TestStageRunner_BundlePushedToARegistry(t *testing.T) {
	t.Parallel()
	creds := []byte(`{"auths":{"registry.example.com":{"auth":"dTpw"}}}`)
	st := app.Stage{Kind: ports.JobBundle, Name: "aicr-bundle-0123456789abcdef", Args: []string{"bundle"},
		Credentials: creds}
	bref := ports.JobRef{Name: st.Name}
	refs := fstest.MapFS{ports.JobImageRefsFile: {Data: []byte("sha256:" + strings.Repeat("a", 64) + "\n")}}
	t.Run("the Job starts with the credential", func(t *testing.T) {
		t.Parallel()
		jobs := mocks.NewMockJobRunner(gomock.NewController(t))
		jobs.EXPECT().Status(gomock.Any(), bref).Return(ports.JobStatus{}, ports.ErrJobNotFound)
		jobs.EXPECT().Start(gomock.Any(), gomock.Cond(func(s ports.JobSpec) bool {
			return s.Name == st.Name && s.Kind == ports.JobBundle && bytes.Equal(s.Credentials, creds)
		})).Return(bref, nil)
		run := app.StageRunner{Jobs: jobs, Image: image, AICRVersion: "1.1.0"}.Run(context.Background(), runtimeUID, st)
		assert.NotEmpty(t, run.Waiting)
	})
	t.Run("a succeeded Job without a version is used", func(t *testing.T) {
		t.Parallel()
		jobs := mocks.NewMockJobRunner(gomock.NewController(t))
		jobs.EXPECT().Status(gomock.Any(), bref).Return(ports.JobStatus{State: ports.JobSucceeded}, nil)
		jobs.EXPECT().Output(gomock.Any(), bref).Return(refs, nil)
		run := app.StageRunner{Jobs: jobs, Image: image, AICRVersion: "1.1.0"}.Run(context.Background(), runtimeUID, st)
		assert.Nil(t, run.Stall)
		assert.Equal(t, fs.FS(refs), run.Files)
	})
}

// The upgrade-check report records no AICR version: its Job's output is used without one, the
// version being the pinned image's.
func TestStageRunner_UpgradeCheckRecordsNoVersion(t *testing.T) {
	t.Parallel()
	stage := app.Stage{Kind: ports.JobUpgradeCheck, Name: "aicr-upgrade-check-0123456789abcdef", Args: []string{"upgrade-check"}}
	ref := ports.JobRef{Name: stage.Name}
	report := fstest.MapFS{ports.JobArtifactFile: {Data: []byte(`{"summary":{"components":0,"failing":0},"components":[]}`)}}
	jobs := mocks.NewMockJobRunner(gomock.NewController(t))
	jobs.EXPECT().Status(gomock.Any(), ref).Return(ports.JobStatus{State: ports.JobSucceeded}, nil)
	jobs.EXPECT().Output(gomock.Any(), ref).Return(report, nil)
	run := app.StageRunner{Jobs: jobs, Image: image, AICRVersion: "1.1.0"}.Run(context.Background(), runtimeUID, stage)
	assert.Nil(t, run.Stall)
	assert.NotNil(t, run.Files)
}
