package domain_test

import (
	"context"
	"fmt"
	"io/fs"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

const validationRun = rolloutName + "-validate"

// ctrf is a CTRF report of AICR validate with the given summary counts and tests
// (name:status pairs).
func ctrf(tests, passed, failed, skipped, other int, results ...string) []byte {
	list := ""
	for i := 0; i+1 < len(results); i += 2 {
		if list != "" {
			list += ","
		}
		list += fmt.Sprintf(`{"name":%q,"status":%q,"duration":0,"suite":["deployment"]}`, results[i], results[i+1])
	}
	return fmt.Appendf(nil, `{"reportFormat":"CTRF","specVersion":"0.0.1","results":{"tool":{"name":"aicr"},`+
		`"summary":{"tests":%d,"passed":%d,"failed":%d,"skipped":%d,"pending":0,"other":%d},"tests":[%s]}}`,
		tests, passed, failed, skipped, other, list)
}

// output is the output of a validation job that wrote report.
func output(report []byte) fs.FS {
	return fstest.MapFS{ports.JobArtifactFile: {Data: report}, "format": {Data: []byte("json")}}
}

func validating() domain.RolloutStatus {
	return domain.RolloutStatus{Phase: domain.PhaseValidating, Step: 2, ValidationRun: validationRun}
}

// TestAdvance_ValidationWritesEvidence: after the last step the rollout validates (RO-10) with
// `aicr --log-json validate` against the plan's validation recipe mounted from the job's
// inputs (PLAN-2), placed where the environment says, in the validation namespace, its
// snapshot agent from the same pinned AICR image (--image), writing its CTRF report to the
// job's output;
// a passed report is stored in the evidence byte for byte with the rendered bundle's digest.
func TestAdvance_ValidationWritesEvidence(t *testing.T) {
	t.Parallel()
	p, r := newPorts(t)
	e := env(t)
	e.ValidationRequired, e.ValidationImage = true, "aicr@sha256:00"
	e.ValidationPlacement = &ports.JobPlacement{NodeSelector: map[string]string{"pool": "system"}}
	r.clock.Now().Return(t0).AnyTimes()
	stepsWritten(r, spec(t).ToPlanDigest)
	st := advance(t, p, rollout(t, spec(t), progressing(2)), e).Status
	require.Equal(t, domain.PhaseValidating, st.Phase)
	assert.Equal(t, "rollout "+rolloutName+": deployment validation run "+validationRun, st.Message)

	job := ports.JobRef{Name: st.ValidationRun}
	require.Equal(t, validationRun, job.Name)
	r.jobs.Status(gomock.Any(), job).Return(ports.JobStatus{}, ports.ErrJobNotFound)
	stepsWritten(r, spec(t).ToPlanDigest)
	r.jobs.OutputRef(job.Name).Return("cm://aicr-validation/" + job.Name + "-output")
	var started ports.JobSpec
	r.jobs.Start(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, s ports.JobSpec) (ports.JobRef, error) {
		started = s
		return job, nil
	})
	out := advance(t, p, rollout(t, spec(t), st), e)
	assert.Equal(t, domain.PhaseValidating, out.Phase())
	assert.Equal(t, ports.JobSpec{
		Name: job.Name, Kind: ports.JobValidate, Image: "aicr@sha256:00",
		Args: []string{
			"--log-json", "validate", "-r", "/aicr/inputs/recipe.yaml", "--phase", "deployment",
			"--namespace", validationNamespace, "--image", "aicr@sha256:00",
			"--fail-on-error=false", "-o", "cm://aicr-validation/" + job.Name + "-output",
		},
		Inputs:    map[string][]byte{"recipe.yaml": []byte(validationRecipe)},
		Owner:     ports.ReleaseOwner{RuntimeUID: uid, PlanDigest: spec(t).ToPlanDigest, Rollout: rolloutName},
		Placement: e.ValidationPlacement,
	}, started)

	report := ctrf(3, 2, 0, 1, 0, "operator-health", "passed", "expected-resources", "passed", "nccl", "skipped")
	r.jobs.Status(gomock.Any(), job).Return(ports.JobStatus{State: ports.JobSucceeded}, nil)
	r.jobs.Output(gomock.Any(), job).Return(output(report), nil)
	stepsWritten(r, spec(t).ToPlanDigest)
	r.engine.Status(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, ref ports.ReleaseRef) (ports.ReleaseStatus, error) {
		st := written(ref, spec(t).ToPlanDigest, true)
		st.DesiredRevision, st.SyncedRevision = "rev-"+ref.ID, "rev-"+ref.ID
		return st, nil
	}).Times(len(e.Target.Releases))
	var pushed ports.Evidence
	r.reg.PushEvidence(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, ev ports.Evidence) (ports.Digest, error) {
		pushed = ev
		return ports.Digest("sha256:ev"), nil
	})
	overridden := func(s *domain.RolloutSpec) {
		s.Approval.Overrides = []domain.DisruptionOverride{{Release: "gpu-operator", OverriddenBy: "alice",
			OverriddenAt: t0, Reason: "job checkpointed"}}
	}
	out = advance(t, p, rollout(t, spec(t, overridden), out.Status), e)
	assert.Equal(t, domain.PhaseSucceeded, out.Phase())
	assert.Equal(t, ports.Digest("sha256:ev"), out.EvidenceDigest)
	assert.Equal(t, []ports.EvidenceOverride{{Release: "gpu-operator", OverriddenBy: "alice", OverriddenAt: t0,
		Reason: "job checkpointed"}}, pushed.DisruptionOverrides, "the evidence records the steps approvers let go")

	// RO-10: the evidence names the plan, its bundle, the rollout, every release's synced
	// revision and holds the report as AICR wrote it.
	assert.Equal(t, spec(t).ToPlanDigest, pushed.PlanDigest)
	assert.Equal(t, bundleDigest, pushed.BundleDigest)
	assert.Equal(t, rolloutName, pushed.Rollout)
	assert.Equal(t, report, pushed.Report)
	require.Len(t, pushed.Releases, len(e.Target.Releases))
	for i, rel := range e.Target.Releases {
		assert.Equal(t, "rev-"+rel.ID, pushed.Releases[i].Revision)
		assert.Equal(t, rel.Namespace, pushed.Releases[i].Namespace)
	}
}

// TestAdvance_ValidationReportDecides: with --fail-on-error=false the CTRF report, not the exit
// code, decides a completed run (RO-10, docs/design/aicr-cli.md section 4): failed or other checks, a
// missing or unreadable report fail the rollout with a message naming the counts; so does a
// report without checks or whose every check was skipped, which is no evidence; a run with a
// passed check and no failed one succeeds.
func TestAdvance_ValidationReportDecides(t *testing.T) {
	t.Parallel()
	failedPrefix := "deployment validation run " + validationRun + " failed: "
	tests := []struct {
		name    string
		files   fs.FS
		err     error
		message string // "" = the rollout succeeds
	}{
		{"failed checks are named", output(ctrf(14, 12, 2, 0, 0, "a", "passed", "gpu-operator-version", "failed", "expected-resources", "failed")),
			nil, "2 of 14 checks failed: gpu-operator-version, expected-resources"},
		{"a check that ended otherwise fails", output(ctrf(3, 2, 0, 0, 1, "a", "passed", "b", "passed", "c", "other")),
			nil, "1 of 3 checks failed: c"},
		{"at most five failed checks are named", output(ctrf(6, 0, 6, 0, 0, "c1", "failed", "c2", "failed", "c3", "failed",
			"c4", "failed", "c5", "failed", "c6", "failed")), nil, "6 of 6 checks failed: c1, c2, c3, c4, c5, ..."},
		{"counts alone when the tests are not listed", output(ctrf(4, 2, 2, 0, 0)), nil, "2 of 4 checks failed"},
		{"an unparseable report fails", output([]byte("level=info msg=done")), nil, "its report is not JSON: "},
		{"a report of another format fails", output([]byte(`{"reportFormat":"JUnit","results":{}}`)), nil,
			"its report is not a CTRF report with results.summary"},
		{"an output without the report fails", fstest.MapFS{"format": {Data: []byte("json")}}, nil, "the run wrote no report"},
		{"a missing output fails", nil, ports.ErrJobNotFound, "the run wrote no report"},
		{"passed and skipped checks pass", output(ctrf(2, 1, 0, 1, 0, "a", "passed", "b", "skipped")), nil, ""},
		{"passed checks counted alone pass", output(ctrf(2, 2, 0, 0, 0)), nil, ""},
		{"a report without checks fails", output(ctrf(0, 0, 0, 0, 0)), nil,
			"its report lists no checks: a run that checked nothing is no evidence"},
		{"a report whose every check was skipped fails", output(ctrf(2, 0, 0, 2, 0, "a", "skipped", "b", "skipped")), nil,
			"none of its 2 checks passed (all skipped or pending)"},
		{"skipped checks counted alone fail", output(ctrf(3, 0, 0, 3, 0)), nil, "none of its 3 checks passed"},
		{"a summary claiming passes its list does not show fails", output(ctrf(2, 2, 0, 0, 0, "a", "skipped", "b", "skipped")),
			nil, "none of its 2 checks passed"},
		{"a failure the summary hides fails", output(ctrf(2, 2, 0, 0, 0, "a", "passed", "b", "failed")), nil,
			"1 of 2 checks failed: b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, r := newPorts(t)
			e := env(t)
			e.ValidationRequired = true
			r.clock.Now().Return(t0).AnyTimes()
			job := ports.JobRef{Name: validationRun}
			r.jobs.Status(gomock.Any(), job).Return(ports.JobStatus{State: ports.JobSucceeded}, nil)
			r.jobs.Output(gomock.Any(), job).Return(tt.files, tt.err)
			if tt.message == "" {
				stepsWritten(r, spec(t).ToPlanDigest)
				r.engine.Status(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, ref ports.ReleaseRef) (ports.ReleaseStatus, error) {
					return written(ref, spec(t).ToPlanDigest, true), nil
				}).AnyTimes()
				r.reg.PushEvidence(gomock.Any(), gomock.Any()).Return(ports.Digest("sha256:ev"), nil)
			} else {
				r.jobs.Retain(gomock.Any(), job).Return(nil) // RES-7: a failed validation stays seven days
			}
			out := advance(t, p, rollout(t, spec(t), validating()), e)
			if tt.message == "" {
				assert.Equal(t, domain.PhaseSucceeded, out.Phase())
				return
			}
			assert.Equal(t, domain.PhaseFailed, out.Phase())
			assert.Empty(t, out.EvidenceDigest)
			require.NotNil(t, out.Stall)
			assert.Equal(t, domain.StallRolloutFailed, out.Stall.Reason())
			assert.Contains(t, out.Status.Message, failedPrefix+tt.message)
		})
	}
}

// TestAdvance_ValidationExitCodeFails: a run that did not complete (non-zero exit) fails the
// rollout without reading a report (RO-10).
func TestAdvance_ValidationExitCodeFails(t *testing.T) {
	t.Parallel()
	p, r := newPorts(t)
	e := env(t)
	e.ValidationRequired = true
	r.clock.Now().Return(t0).AnyTimes()
	r.jobs.Status(gomock.Any(), ports.JobRef{Name: validationRun}).
		Return(ports.JobStatus{State: ports.JobFailed, ExitCode: 2, Message: "readiness pre-flight failed"}, nil)
	r.jobs.Retain(gomock.Any(), ports.JobRef{Name: validationRun}).Return(nil)
	out := advance(t, p, rollout(t, spec(t), validating()), e)
	assert.Equal(t, domain.PhaseFailed, out.Phase())
	assert.Equal(t, "deployment validation run "+validationRun+" failed: readiness pre-flight failed", out.Status.Message)
}

// TestAdvance_ValidationRetriesATransientEnd: a run that ended transiently (AICR exit 6, 7 or
// 9, or killed before AICR exited) starts a fresh run under the next attempt name, at most
// MaxValidationAttempts runs in all; the last one, or any other failure, fails the rollout
// (RES-4, RO-10).
func TestAdvance_ValidationRetriesATransientEnd(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		run      string
		exitCode int
		wantRun  string
	}{
		{"unavailable", validationRun, 6, validationRun + "-2"},
		{"rate limited", validationRun, 7, validationRun + "-2"},
		{"canceled", validationRun + "-2", 9, validationRun + "-3"},
		{"killed before AICR exited", validationRun, 0, validationRun + "-2"},
		{"last attempt", validationRun + "-3", 6, ""},
		{"invalid request", validationRun, 2, ""},
		{"internal", validationRun, 8, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, r := newPorts(t)
			e := env(t)
			e.ValidationRequired = true
			r.clock.Now().Return(t0).AnyTimes()
			r.jobs.Status(gomock.Any(), ports.JobRef{Name: tc.run}).
				Return(ports.JobStatus{State: ports.JobFailed, ExitCode: tc.exitCode, Message: "run ended"}, nil)
			if tc.wantRun == "" {
				r.jobs.Retain(gomock.Any(), ports.JobRef{Name: tc.run}).Return(nil)
			}
			st := validating()
			st.ValidationRun = tc.run
			out := advance(t, p, rollout(t, spec(t), st), e)
			if tc.wantRun == "" {
				assert.Equal(t, domain.PhaseFailed, out.Phase())
				assert.Equal(t, "deployment validation run "+tc.run+" failed: run ended", out.Status.Message)
				return
			}
			assert.Equal(t, domain.PhaseValidating, out.Phase())
			assert.Equal(t, tc.wantRun, out.Status.ValidationRun)
			assert.Contains(t, out.Status.Message, "retrying as "+tc.wantRun)
		})
	}
}

// TestAdvance_ValidationFailsAsJobsDo: a run killed from outside AICR (137, 143, OOMKilled,
// evicted, disrupted) is retried under the next attempt name once the backoff from its end
// passed, at most MaxValidationAttempts runs; a run its deadline stopped fails the rollout and
// is kept (RES-4, RES-7); a pod that waits past JobPodWaitBound stalls the rollout
// JobPodNotRunning with the pod's own reason and message, and a shorter wait polls.
func TestAdvance_ValidationFailsAsJobsDo(t *testing.T) {
	t.Parallel()
	ended := t0.Add(-time.Hour)
	for _, tc := range []struct {
		name    string
		run     string
		st      ports.JobStatus
		wantRun string
		// wantRequeue is the wait of a run still in its backoff.
		wantRequeue time.Duration
		wantFailed  string
	}{
		{name: "exit 137", run: validationRun, st: ports.JobStatus{ExitCode: 137, FinishedAt: ended}, wantRun: validationRun + "-2"},
		{name: "exit 143", run: validationRun, st: ports.JobStatus{ExitCode: 143, FinishedAt: ended}, wantRun: validationRun + "-2"},
		{name: "OOMKilled", run: validationRun + "-2", st: ports.JobStatus{ExitCode: 137, Killed: "OOMKilled", FinishedAt: ended},
			wantRun: validationRun + "-3"},
		{name: "evicted", run: validationRun, st: ports.JobStatus{Killed: "Evicted", FinishedAt: ended}, wantRun: validationRun + "-2"},
		{name: "disrupted", run: validationRun, st: ports.JobStatus{Killed: "DisruptionTarget (EvictionByEvictionAPI)", FinishedAt: ended},
			wantRun: validationRun + "-2"},
		{name: "in its backoff", run: validationRun + "-2", st: ports.JobStatus{ExitCode: 137, FinishedAt: t0.Add(-10 * time.Second)},
			wantRun: validationRun + "-2", wantRequeue: 50 * time.Second},
		{name: "killed on the last attempt", run: validationRun + "-3", st: ports.JobStatus{Killed: "OOMKilled", FinishedAt: ended},
			wantFailed: "killed by OOMKilled"},
		{name: "deadline exceeded", run: validationRun, st: ports.JobStatus{ExitCode: 143, DeadlineExceeded: true, FinishedAt: ended},
			wantFailed: "jobs.activeDeadlineSeconds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, r := newPorts(t)
			e := env(t)
			e.ValidationRequired = true
			r.clock.Now().Return(t0).AnyTimes()
			tc.st.State = ports.JobFailed
			r.jobs.Status(gomock.Any(), ports.JobRef{Name: tc.run}).Return(tc.st, nil)
			if tc.wantFailed != "" {
				r.jobs.Retain(gomock.Any(), ports.JobRef{Name: tc.run}).Return(nil)
			}
			st := validating()
			st.ValidationRun = tc.run
			out := advance(t, p, rollout(t, spec(t), st), e)
			if tc.wantFailed != "" {
				assert.Equal(t, domain.PhaseFailed, out.Phase())
				assert.Contains(t, out.Status.Message, tc.wantFailed)
				return
			}
			assert.Equal(t, domain.PhaseValidating, out.Phase())
			assert.Equal(t, tc.wantRun, out.Status.ValidationRun)
			if tc.wantRequeue > 0 {
				assert.Equal(t, tc.wantRequeue, out.RequeueAfter)
			}
		})
	}
}

// TestAdvance_ValidationRunNotRunning: a validation run that does not run stalls the rollout
// once it has waited past its bound: a pod waiting past JobPodWaitBound JobPodNotRunning with
// the pod's reason, its message and what to fix; a Job whose deletion takes longer than
// JobDeletionBound JobUndeletable. Either is polled, so the run goes on once it can; a shorter
// wait polls without a stall.
func TestAdvance_ValidationRunNotRunning(t *testing.T) {
	t.Parallel()
	waiting := func(d time.Duration) ports.JobStatus {
		return ports.JobStatus{State: ports.JobRunning, Waiting: &ports.JobWaiting{
			Reason: "ImagePullBackOff", Message: `Back-off pulling image "validator"`, Since: t0.Add(-d)}}
	}
	deleting := func(d time.Duration) ports.JobStatus {
		return ports.JobStatus{State: ports.JobRunning, DeletingSince: t0.Add(-d)}
	}
	for _, tc := range []struct {
		name     string
		status   ports.JobStatus
		stall    domain.StallReason
		contains []string
	}{
		{"a pod waiting past the bound", waiting(domain.JobPodWaitBound + domain.ClockSkewTolerance), domain.StallJobPodNotRunning,
			[]string{validationRun, "ImagePullBackOff", `Back-off pulling image "validator"`, "jobs.imagePullSecrets"}},
		{"a pod waiting within the bound", waiting(domain.JobPodWaitBound + domain.ClockSkewTolerance - time.Second), "", nil},
		{"a Job deleted past the bound", deleting(domain.JobDeletionBound + domain.ClockSkewTolerance), domain.StallJobUndeletable,
			[]string{validationRun, "finalizer"}},
		{"a Job deleted within the bound", deleting(domain.JobDeletionBound + domain.ClockSkewTolerance - time.Second), "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, r := newPorts(t)
			e := env(t)
			e.ValidationRequired = true
			r.clock.Now().Return(t0).AnyTimes()
			r.jobs.Status(gomock.Any(), ports.JobRef{Name: validationRun}).Return(tc.status, nil)
			out := advance(t, p, rollout(t, spec(t), validating()), e)
			assert.Equal(t, domain.PhaseValidating, out.Phase())
			assert.Positive(t, out.RequeueAfter, "the run is polled, so it goes on once it can")
			if tc.stall == "" {
				assert.Nil(t, out.Stall)
				return
			}
			require.NotNil(t, out.Stall)
			assert.Equal(t, tc.stall, out.Stall.Reason())
			for _, part := range tc.contains {
				assert.Contains(t, out.Stall.Message(), part)
			}
		})
	}
}
