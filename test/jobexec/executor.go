// Package jobexec is a test double of the kubelet (and of the Job and
// garbage-collector controllers) for AICR Jobs on envtest. It watches the Jobs
// of one namespace, asserts their spec (image pinned by digest, args,
// identity, TTL, owner references of the run-scoped objects), creates the
// Job's Pod as the Job controller, plays the AICR container through a
// Behavior, writes the Job's output ConfigMap as that Pod (its ServiceAccount
// with the bound token's pod-name claim, so the chart's admission policies
// judge the write as they would in a cluster), marks the Pod terminated with
// the exit code and the log tail, and sets the Job status. A bundle Job
// writing to `-o oci://` pushes the bundle to that registry instead, with the
// Job's mounted credential, as AICR does (pushBundle). A Behavior can also
// leave the Pod waiting (Unschedulable, ImagePullBackOff, ErrImagePull,
// CreateContainerConfigError), kill it from outside AICR (exit 137 or 143,
// OOMKilled, evicted, disrupted) or fail the Job at its deadline. It never
// touches operator objects. It enforces the snapshot contract (agent.go): a
// snapshot runs only as AICR's snapshot agent in the discovery namespace, and
// fails with AICR's exit code when its ServiceAccount lacks a right the agent
// uses (the executor asks the API server with a SubjectAccessReview). A
// validate Job plays what `aicr validate` creates in its namespace as the
// Job's own identity (validate.go): its snapshot agent with its run-scoped
// RBAC, the run's recipe ConfigMap, its cluster-admin validator identity and
// one Job per deployment check of AICR's own catalog, then the clean-up; a
// refused object fails the run as AICR does. Not modelled: real scheduling
// and image pulls, restarts, the readiness pre-flight, what the agent and the
// checks read, and the real AICR binary.
package jobexec

import (
	"context"
	"errors"
	"fmt"
	"sync"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/jobs"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/ports"
)

// Result is what the AICR container does in one Job.
type Result struct {
	// Hold leaves the Job running (no output, no status).
	Hold bool
	// ExitCode is the container's exit code; non-zero fails the Job.
	ExitCode int32
	// Log is the log tail the termination message carries (FallbackToLogsOnError).
	Log string
	// ImageRefs, for a bundle Job writing to `-o oci://` whose behavior pushed (or forged) by
	// itself instead of returning a Bundle, is what its AICR publishes to --image-refs
	// (PublishImageRefs), which the Job's image-refs container hands back (PlayCopier).
	ImageRefs string
	// Version is the AICR version label of the output ConfigMap ("" = none).
	Version string
	// Data are the output ConfigMap's data keys (snapshot.yaml).
	Data map[string]string
	// Bundle is the bundle directory as a gzip tar archive: stored as binaryData
	// bundle.tar.gz for `-o cm://`, pushed as AICR pushes it for `-o oci://` (pushBundle).
	Bundle []byte
	// Waiting leaves the Job's Pod pending as the scheduler or the kubelet would (no output,
	// the Job running) until the behavior changes.
	Waiting *Waiting
	// Kill ends the Pod as something outside AICR does (KillOOM, KillEvicted, KillDisrupted),
	// with ExitCode (137 when zero); an ExitCode of 137 or 143 alone is a kill by signal.
	Kill string
	// DeadlineExceeded fails the Job as its activeDeadlineSeconds does.
	DeadlineExceeded bool
	// LoseOutput deletes the Job's output ConfigMap, as the garbage collector or an
	// administrator could, after the Pod wrote it and before the Job succeeds.
	LoseOutput bool
	// Agent is how the snapshot agent Job of a validate Job ends ("" = it writes its snapshot).
	Agent AgentOutcome
}

// Behavior decides the Result of a Job from the Job and its inputs.
type Behavior func(job *batchv1.Job, inputs *corev1.ConfigMap) Result

// Executor plays AICR Jobs in one namespace.
type Executor struct {
	c client.WithWatch
	// cfg is the admin config the executor impersonates the Job controller and Pods with.
	cfg *rest.Config
	// jobController creates the Jobs' Pods and writes the Jobs' status as the Job controller.
	jobController client.Client
	// kubelet writes the Pods' status as the simulated kubelet's node identity.
	kubelet client.Client
	// collector deletes a Job's dependents as the garbage collector.
	collector client.Client
	namespace string
	image     string
	// copier is the operator image a bundle Job's image-refs container must run.
	copier string
	// serviceAccount is the identity every Job must run as.
	serviceAccount string
	// nodeSelector is the nodeSelector every Job's Pod must have (nil: not checked).
	nodeSelector map[string]string
	// agent marks the discovery namespace's executor: every Job is AICR's snapshot agent
	// (ExpectSnapshotAgent, agent.go).
	agent bool

	kick chan struct{}

	mu sync.Mutex
	// clock stamps the times the executor writes (nil: the wall clock).
	clock      ports.Clock
	behavior   Behavior
	executed   []string
	violations []error
	// runObjects are the objects validate runs created (ValidateRunObjects).
	runObjects []string
}

// New returns an executor for namespace, expecting image on every Job and the AICR Jobs
// identity (jobs.ServiceAccount) unless ExpectServiceAccount names another.
func New(cfg *rest.Config, scheme *runtime.Scheme, namespace, image string, b Behavior) (*Executor, error) {
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("jobexec client: %w", err)
	}
	e := &Executor{
		c: c, cfg: cfg, namespace: namespace, image: image, copier: CopierImage, serviceAccount: jobs.ServiceAccount,
		behavior: b, kick: make(chan struct{}, 1),
	}
	if e.jobController, err = e.impersonating(rest.ImpersonationConfig{UserName: JobControllerUser, Groups: controllerGroups}); err != nil {
		return nil, err
	}
	if e.collector, err = e.impersonating(rest.ImpersonationConfig{UserName: GarbageCollectorUser, Groups: controllerGroups}); err != nil {
		return nil, err
	}
	if e.kubelet, err = e.impersonating(rest.ImpersonationConfig{UserName: KubeletUser, Groups: kubeletGroups}); err != nil {
		return nil, err
	}
	return e, nil
}

// ExpectServiceAccount sets the identity every Job must run as, for an executor of Jobs that
// run as their own identity (deployment validation, RES-8). Call it before Run.
func (e *Executor) ExpectServiceAccount(name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.serviceAccount = name
}

// ExpectCopierImage sets the operator image a bundle Job's image-refs container must run
// (CopierImage unless set), for an executor of an operator the chart configured. Call it
// before Run.
func (e *Executor) ExpectCopierImage(image string) {
	e.copier = image
}

// ErrMisplaced is the violation of a Job whose Pod is not placed where ExpectNodeSelector says.
var ErrMisplaced = errors.New("job placed outside the expected node group")

// ExpectNodeSelector sets the nodeSelector every Job's Pod must have: the node group the
// installation places AICR's Jobs on. Call it before Run.
func (e *Executor) ExpectNodeSelector(sel map[string]string) {
	e.nodeSelector = sel
}

// SetBehavior replaces the behavior for Jobs not yet played and plays held Jobs again.
func (e *Executor) SetBehavior(b Behavior) {
	e.mu.Lock()
	e.behavior = b
	e.mu.Unlock()
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

// Executed returns the names of the Jobs played so far, in order.
func (e *Executor) Executed() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.executed...)
}

// Violations returns every spec assertion that failed.
func (e *Executor) Violations() []error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]error(nil), e.violations...)
}

// Run plays Jobs until ctx ends. Every Job, ConfigMap or Pod event of the
// namespace triggers a pass over all Jobs, so a Job whose run-scoped objects
// are not created yet is played on a later event.
func (e *Executor) Run(ctx context.Context) error {
	if err := e.bindKubelet(ctx); err != nil {
		return err
	}
	for ctx.Err() == nil {
		if err := e.watchOnce(ctx); err != nil && ctx.Err() == nil {
			return err
		}
	}
	return nil
}

func (e *Executor) watchOnce(ctx context.Context) error {
	var chans []<-chan watch.Event
	for _, l := range []client.ObjectList{&batchv1.JobList{}, &corev1.ConfigMapList{}} {
		w, err := e.c.Watch(ctx, l, client.InNamespace(e.namespace))
		if err != nil {
			return fmt.Errorf("watch: %w", err)
		}
		defer w.Stop()
		chans = append(chans, w.ResultChan())
	}
	e.pass(ctx)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-e.kick:
		case _, ok := <-chans[0]:
			if !ok {
				return nil
			}
		case _, ok := <-chans[1]:
			if !ok {
				return nil
			}
		}
		e.pass(ctx)
	}
}

// pass plays every unfinished Job and collects every Job deleted in the foreground.
func (e *Executor) pass(ctx context.Context) {
	jobs := &batchv1.JobList{}
	if err := e.c.List(ctx, jobs, client.InNamespace(e.namespace),
		client.MatchingLabels{aicrv1alpha1.LabelManagedBy: aicrv1alpha1.ManagedByValue}); err != nil {
		return
	}
	for i := range jobs.Items {
		job := &jobs.Items[i]
		var err error
		switch {
		case job.DeletionTimestamp != nil:
			err = e.collect(ctx, job)
		case job.Spec.Suspend != nil && *job.Spec.Suspend:
		case !finished(job):
			err = e.play(ctx, job)
		}
		if err != nil && ctx.Err() == nil && !errors.Is(err, errNotReady) && !apierrors.IsNotFound(err) {
			e.violate(fmt.Errorf("job %s: %w", job.Name, err))
		}
	}
}

func (e *Executor) violate(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.violations = append(e.violations, err)
}

func finished(job *batchv1.Job) bool {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}
