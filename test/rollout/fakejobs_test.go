package rollout_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"sync"
	"testing/fstest"

	"github.com/NVIDIA/aicr/ports"
)

// validationNamespace is where the validation Jobs and their checks run (RO-10, RES-8).
const validationNamespace = "aicr-validation"

// fakeJobs is an in-memory JobRunner of the validation Jobs: it records the spec each Job
// started with; finish decides a Job's result and the report it wrote to its output.
type fakeJobs struct {
	mu      sync.Mutex
	jobs    map[string]ports.JobStatus
	specs   map[string]ports.JobSpec
	reports map[string][]byte
	// deleted and retained record the Jobs Delete and Retain were called for (RES-7).
	deleted, retained map[string]bool
}

func newFakeJobs() *fakeJobs {
	return &fakeJobs{jobs: map[string]ports.JobStatus{}, specs: map[string]ports.JobSpec{}, reports: map[string][]byte{},
		deleted: map[string]bool{}, retained: map[string]bool{}}
}

func (j *fakeJobs) Start(_ context.Context, spec ports.JobSpec) (ports.JobRef, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, ok := j.jobs[spec.Name]; !ok {
		j.jobs[spec.Name], j.specs[spec.Name] = ports.JobStatus{State: ports.JobRunning}, spec
	}
	return ports.JobRef{Name: spec.Name}, nil
}

func (j *fakeJobs) Status(_ context.Context, ref ports.JobRef) (ports.JobStatus, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	st, ok := j.jobs[ref.Name]
	if !ok {
		return ports.JobStatus{}, ports.ErrJobNotFound
	}
	return st, nil
}

// Output follows the port's contract: the report is the artifact file of a succeeded Job.
func (j *fakeJobs) Output(_ context.Context, ref ports.JobRef) (fs.FS, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.jobs[ref.Name].State != ports.JobSucceeded {
		return nil, ports.ErrJobNotFound
	}
	files := fstest.MapFS{"format": {Data: []byte("json")}}
	if report, ok := j.reports[ref.Name]; ok {
		files[ports.JobArtifactFile] = &fstest.MapFile{Data: report}
	}
	return files, nil
}

// OutputRef is the output ConfigMap of the Job in the validation namespace, as jobs.Runner names it.
func (j *fakeJobs) OutputRef(job string) string {
	return "cm://" + validationNamespace + "/" + job + "-output"
}

// Delete forgets the Job and what it wrote.
func (j *fakeJobs) Delete(_ context.Context, ref ports.JobRef) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	delete(j.jobs, ref.Name)
	delete(j.specs, ref.Name)
	delete(j.reports, ref.Name)
	j.deleted[ref.Name] = true
	return nil
}

// Retain keeps a Job, which the fake never forgets by itself anyway; it records the call.
func (j *fakeJobs) Retain(_ context.Context, ref ports.JobRef) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.retained[ref.Name] = true
	return nil
}

// lifecycle reports whether Delete and Retain were called for the Job.
func (j *fakeJobs) lifecycle(name string) (deleted, retained bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.deleted[name], j.retained[name]
}

// errNotKept: validation Jobs keep no result (only the resolver's snapshot and recipe do).
var errNotKept = errors.New("the validation runner keeps no result")

// Keep refuses: validation keeps nothing.
func (j *fakeJobs) Keep(context.Context, ports.JobRef, ports.KeptResult) error { return errNotKept }

// Kept refuses: validation keeps nothing.
func (j *fakeJobs) Kept(context.Context, ports.KeptResult) (fs.FS, error) { return nil, errNotKept }

// spec returns the spec the Job started with.
func (j *fakeJobs) spec(name string) (ports.JobSpec, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	s, ok := j.specs[name]
	return s, ok
}

// finish ends the Job in state with msg; report (nil: none) is what it wrote to its output.
func (j *fakeJobs) finish(name string, state ports.JobState, msg string, report []byte) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.jobs[name] = ports.JobStatus{State: state, Message: msg}
	if report != nil {
		j.reports[name] = report
	}
}

// fakeRegistry stores validation evidence; every other method is unused here.
type fakeRegistry struct {
	ports.Registry

	mu       sync.Mutex
	evidence map[ports.Digest]ports.Evidence
}

func newFakeRegistry() *fakeRegistry {
	return &fakeRegistry{evidence: map[ports.Digest]ports.Evidence{}}
}

func (r *fakeRegistry) PushEvidence(_ context.Context, ev ports.Evidence) (ports.Digest, error) {
	raw, _ := json.Marshal(ev)
	sum := sha256.Sum256(raw)
	d := ports.Digest("sha256:" + hex.EncodeToString(sum[:]))
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evidence[d] = ev
	return d, nil
}

// pushed returns the evidence stored under digest.
func (r *fakeRegistry) pushed(d ports.Digest) (ports.Evidence, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ev, ok := r.evidence[d]
	return ev, ok
}

// fail ends the Job Failed with AICR's exit code and msg.
func (j *fakeJobs) fail(name string, exitCode int, msg string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.jobs[name] = ports.JobStatus{State: ports.JobFailed, ExitCode: exitCode, Message: msg}
}
