//go:build e2e

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/kube/manager"
	"github.com/NVIDIA/aicr/test/chartrender"
	"github.com/NVIDIA/aicr/test/e2e/cluster"
	"github.com/NVIDIA/aicr/test/env"
)

// monkey kills the operator process with SIGKILL where its plan says and starts it again
// with the same arguments, until stopped. It finds the kill points in the API server's audit
// log (the operator's writes) and in a watch of the resolver's Jobs, never on a timer.
type monkey struct {
	d        *demo
	plan     killPlan
	auditLog string
	triggers chan string
	cancel   context.CancelFunc
	wg       sync.WaitGroup

	mu sync.Mutex
	// op is the operator process running now.
	op *cluster.Process
	// kills are why each kill happened, in order.
	kills []string
	// counted are the operator's counted writes and changing Application writes the audit log
	// showed while the monkey ran.
	counted writeCounts
	// errs are the failures of the monkey's own work (a restart that failed).
	errs []error
}

// notCounted are the resources whose writes the kill points do not count: the Lease renewals
// and Events follow the clock, the reviews the metrics scrapes, not the operator's work.
var notCounted = []string{"leases", "events", "tokenreviews", "subjectaccessreviews"}

// startMonkey starts killing d's operator as plan says.
func startMonkey(d *demo, plan killPlan, auditLog string) *monkey {
	ctx, cancel := context.WithCancel(context.Background())
	m := &monkey{d: d, plan: plan, auditLog: auditLog, triggers: make(chan string, 64), cancel: cancel, op: d.procs[0]}
	args := d.procs[0].Args()
	jobNamespaces := []string{chartrender.FlagValue(args, "--jobs-namespace"), chartrender.FlagValue(args, "--discovery-namespace")}
	m.wg.Add(3)
	go func() { defer m.wg.Done(); m.record(m.tail(ctx)) }()
	go func() { defer m.wg.Done(); m.record(m.watchStageJobs(ctx, jobNamespaces)) }()
	go func() { defer m.wg.Done(); m.killer(ctx) }()
	return m
}

// stop ends the kills; the operator running now keeps running.
func (m *monkey) stop() {
	m.cancel()
	m.wg.Wait()
}

// operator is the operator process running now.
func (m *monkey) operator() *cluster.Process {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.op
}

// writeCounts are how many writes of the operator the kill points counted.
type writeCounts struct{ all, applications int }

// result returns the kills made, the writes counted and the monkey's own failures.
func (m *monkey) result() ([]string, writeCounts, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.kills), m.counted, errors.Join(m.errs...)
}

func (m *monkey) record(err error) {
	if err == nil || errors.Is(err, context.Canceled) {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.errs = append(m.errs, err)
}

// killer carries out the kills one at a time.
func (m *monkey) killer(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case why := <-m.triggers:
			m.record(m.kill(ctx, why))
		}
	}
}

// trigger asks the killer for a kill, unless the monkey is stopping.
func (m *monkey) trigger(ctx context.Context, why string) {
	select {
	case m.triggers <- why:
	case <-ctx.Done():
	}
}

// kill sends SIGKILL to the operator's process group, waits until it is gone, deletes the
// Lease the dead leader holds (instead of waiting out its 15 s: nobody renews it) and starts
// the operator again with the same command line and kubeconfig.
func (m *monkey) kill(ctx context.Context, why string) error {
	op := m.operator()
	if err := syscall.Kill(-op.Pid(), syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill the operator (pid %d): %w", op.Pid(), err)
	}
	op.Stop()
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: operatorNamespace, Name: manager.LeaderElectionID}}
	if err := m.d.admin.Delete(ctx, lease); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("delete the dead leader's Lease: %w", err)
	}
	args := m.d.procs[0].Args()
	m.mu.Lock()
	n := len(m.kills) + 1
	m.mu.Unlock()
	next, err := start(m.d.workdir, fmt.Sprintf("aicr-operator-%d", n), filepath.Join(m.d.workdir, "operator.kubeconfig"),
		m.d.reg.CAFile, args[0], args[1:]...)
	if err != nil {
		return fmt.Errorf("restart the operator after kill %d (%s): %w", n, why, err)
	}
	m.mu.Lock()
	m.op = next
	m.kills = append(m.kills, why)
	m.mu.Unlock()
	progress("chaos: kill %d (SIGKILL of pid %d) %s; operator restarted as pid %d", n, op.Pid(), why, next.Pid())
	return nil
}

// tail reads the audit log as the API server appends to it and triggers the kills after the
// planned counted writes and changing Application writes of the operator.
func (m *monkey) tail(ctx context.Context) error {
	var offset int64
	var partial []byte
	var counted, appWrites int
	for {
		chunk, err := readFrom(m.auditLog, offset)
		if err != nil {
			return err
		}
		offset += int64(len(chunk))
		partial = append(partial, chunk...)
		for {
			line, rest, found := bytes.Cut(partial, []byte("\n"))
			if !found {
				break
			}
			partial = rest
			var e env.AuditEvent
			if err := json.Unmarshal(line, &e); err != nil {
				return fmt.Errorf("audit log: %w", err)
			}
			var why []string
			if countedWrite(e) {
				counted++
				if slices.Contains(m.plan.afterWrite, counted) {
					why = append(why, fmt.Sprintf("after counted write %d (%s %s %s/%s)", counted, e.Verb, e.ObjectRef.Resource, e.ObjectRef.Namespace, e.ObjectRef.Name))
				}
			}
			if changingAppWrite(e) {
				appWrites++
				if slices.Contains(m.plan.afterAppWrite, appWrites) {
					why = append(why, fmt.Sprintf("after Application write %d (%s %s)", appWrites, e.Verb, e.ObjectRef.Name))
				}
			}
			m.mu.Lock()
			m.counted = writeCounts{counted, appWrites}
			m.mu.Unlock()
			if len(why) > 0 {
				m.trigger(ctx, why[0])
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// readFrom returns what path holds from offset on.
func readFrom(path string, offset int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	defer func() { _ = f.Close() }()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, err
	}
	return io.ReadAll(f)
}

// countedWrite reports a successful write of the operator that the kill points count.
func countedWrite(e env.AuditEvent) bool {
	return e.User.Username == operatorUser && isWriteVerb(e.Verb) && e.ResponseStatus.Code/100 == 2 &&
		!slices.Contains(notCounted, e.ObjectRef.Resource)
}

func isWriteVerb(verb string) bool {
	return slices.Contains([]string{"create", "update", "patch", "delete"}, verb)
}

// watchStageJobs triggers a kill at one boundary of each resolver stage Job, the i-th Job
// the operator creates at the boundary atCompletion[i] names: when the Job appears, or when it
// completes (the simulated kubelet marked it Complete or Failed).
func (m *monkey) watchStageJobs(ctx context.Context, namespaces []string) error {
	scheme, err := manager.NewScheme()
	if err != nil {
		return err
	}
	c, err := client.NewWithWatch(m.d.cp.Config, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	events := make(chan *batchv1.Job)
	for _, ns := range namespaces {
		go watchJobs(ctx, c, ns, events)
	}
	index := map[types.UID]int{}
	completed := map[types.UID]bool{}
	for {
		var job *batchv1.Job
		select {
		case <-ctx.Done():
			return ctx.Err()
		case job = <-events:
		}
		i, seen := index[job.UID]
		if !seen {
			i = len(index)
			index[job.UID] = i
			if i < len(m.plan.atCompletion) && !m.plan.atCompletion[i] {
				m.trigger(ctx, fmt.Sprintf("at stage Job %s/%s created", job.Namespace, job.Name))
			}
		}
		if finished(job) && !completed[job.UID] {
			completed[job.UID] = true
			if i < len(m.plan.atCompletion) && m.plan.atCompletion[i] {
				m.trigger(ctx, fmt.Sprintf("at stage Job %s/%s completed", job.Namespace, job.Name))
			}
		}
	}
}

// watchJobs sends every Job of namespace a watch reports until ctx ends, watching again when
// the API server ends a watch.
func watchJobs(ctx context.Context, c client.WithWatch, namespace string, out chan<- *batchv1.Job) {
	for ctx.Err() == nil {
		w, err := c.Watch(ctx, &batchv1.JobList{}, client.InNamespace(namespace))
		if err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			continue
		}
		for ev := range w.ResultChan() {
			job, ok := ev.Object.(*batchv1.Job)
			if !ok || ev.Type == watch.Deleted {
				continue
			}
			select {
			case out <- job:
			case <-ctx.Done():
				w.Stop()
				return
			}
		}
		w.Stop()
	}
}

// finished reports a Job the kubelet finished: Complete or Failed.
func finished(job *batchv1.Job) bool {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}
