package jobexec

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/ports"
)

// validateRun is one `aicr validate` run as AICR v1 plays it in its --namespace with the
// validate Pod's own identity: its snapshot agent (RBAC, Job, the snapshot it writes), the
// run's recipe ConfigMap, its validator identity bound to cluster-admin, one Job per check of
// the phase, then the clean-up of everything it created.
type validateRun struct {
	e         *Executor
	as        client.Client
	namespace string
	run       string
	created   []client.Object
}

// playValidate plays the cluster side of a validate Job whose AICR completes (res exits 0):
// every object AICR creates goes through the API server as the validate Pod, so RBAC and the
// chart's policies judge it as in a cluster. A refused write fails the run as AICR does (exit
// 8, INTERNAL) and is recorded as a violation; nil lets the Job go on to write its report.
func (e *Executor) playValidate(ctx context.Context, job *batchv1.Job, pod *corev1.Pod, inputs *corev1.ConfigMap, res Result) (*Result, error) {
	if ports.JobKind(job.Labels[jobs.KindLabel]) != ports.JobValidate || res.ExitCode != 0 || res.Kill != "" || res.Hold {
		return nil, nil
	}
	as, err := e.asPod(pod.Spec.ServiceAccountName, pod.Name, string(pod.UID))
	if err != nil {
		return nil, err
	}
	args := AICRArgs(job)
	r := &validateRun{e: e, as: as, namespace: argValue(args, "--namespace"), run: hexID()}
	if r.namespace != job.Namespace {
		e.violate(fmt.Errorf("job %s: aicr validate --namespace %q, not the Job's namespace %s", job.Name, r.namespace, job.Namespace))
	}
	container := aicrContainer(&job.Spec.Template.Spec)
	env := map[string]string{}
	for _, v := range container.Env {
		env[v.Name] = v.Value
	}
	playErr := r.play(ctx, argValue(args, "--image"), env, res, inputs.Data[path.Base(argValue(args, "-r"))])
	cleanErr := r.cleanUp(ctx)
	var agentErr *agentError
	if errors.As(playErr, &agentErr) && cleanErr == nil {
		return &agentErr.result, nil
	}
	if playErr == nil || agentErr != nil {
		playErr = cleanErr
	}
	if playErr != nil {
		e.violate(fmt.Errorf("job %s: aicr validate: %w", job.Name, playErr))
		return &Result{ExitCode: 8, Log: commandFailed(res.Version, 8, "[INTERNAL] validate: "+playErr.Error())}, nil
	}
	return nil, nil
}

// play runs the agent, writes the recipe ConfigMap, binds the validator identity and runs
// every check of the deployment phase with the exit code its entry in res's report asks for.
func (r *validateRun) play(ctx context.Context, image string, env map[string]string, res Result, recipe string) error {
	if image == "" {
		return errors.New("no --image: the agent would run the CLI's default image, not the pinned one")
	}
	if err := r.create(ctx, AgentRBAC(r.namespace, r.run)...); err != nil {
		return err
	}
	if err := r.runAgent(ctx, image, res.Version, res.Agent); err != nil {
		return err
	}
	if err := r.create(ctx, &corev1.ConfigMap{ObjectMeta: runMeta(recipePrefix+r.run, r.namespace, r.run, "validation"),
		Data: map[string]string{"recipe.yaml": recipe}}); err != nil {
		return err
	}
	if err := r.create(ctx, ValidatorRBAC(r.namespace, r.run)...); err != nil {
		return err
	}
	checks, err := PhaseChecks(CatalogPath(), "deployment")
	if err != nil {
		return err
	}
	codes := checkExitCodes(res.Data[jobs.OutputKey])
	for _, c := range checks {
		deadline, err := c.deadline()
		if err != nil {
			return err
		}
		img := CheckImage(c.Image, env[jobs.ValidatorRegistryEnv], env[jobs.ValidatorTagEnv], res.Version)
		if err := r.runJob(ctx, CheckJob(r.namespace, r.run, "aicr-"+c.Name+"-"+hexID(), img, c, deadline), "validator", codes[c.Name]); err != nil {
			return err
		}
	}
	return nil
}

// runAgent runs the snapshot agent's Job, whose Pod writes the run's snapshot ConfigMap as the
// agent's own identity, or ends as outcome says: then the run ends as AgentWaitResult says.
func (r *validateRun) runAgent(ctx context.Context, image, version string, outcome AgentOutcome) error {
	job := AgentJob(r.namespace, r.run, image)
	if err := r.create(ctx, job); err != nil {
		return err
	}
	pod, err := r.e.createPod(ctx, job)
	if err != nil {
		return err
	}
	switch outcome {
	case AgentFails:
		err = r.e.finish(ctx, job, pod, "aicr", 1)
	case AgentHangs:
		err = r.e.wait(ctx, job, pod, Waiting{Reason: Unschedulable,
			Message: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."})
	default:
		return r.agentSnapshot(ctx, job, pod, version)
	}
	if err != nil {
		return err
	}
	if res := AgentWaitResult(job, version); res != nil {
		return &agentError{result: *res}
	}
	return nil
}

// agentSnapshot writes the run's snapshot as the agent Pod's identity and completes its Job.
func (r *validateRun) agentSnapshot(ctx context.Context, job *batchv1.Job, pod *corev1.Pod, version string) error {
	agent, err := r.e.asPod(pod.Spec.ServiceAccountName, pod.Name, string(pod.UID))
	if err != nil {
		return err
	}
	snapshot := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: snapshotPrefix + r.run, Namespace: r.namespace,
		Labels: map[string]string{nameLabel: "aicr", componentLabel: "Snapshot", jobs.VersionLabel: jobs.VersionUnknown}},
		Data: map[string]string{"snapshot.yaml": "apiVersion: aicr.run/v1\nkind: Snapshot\nmetadata:\n  version: " + version +
			"\n  source-node: " + pod.Spec.NodeName + "\nmeasurements: []\n", "format": "yaml"}}
	if err := agent.Create(ctx, snapshot); err != nil {
		return fmt.Errorf("the agent writes its snapshot as %s: %w", pod.Spec.ServiceAccountName, err)
	}
	r.created = append(r.created, snapshot)
	return r.e.finish(ctx, job, pod, "aicr", 0)
}

// runJob creates job, its Pod as the Job controller, and ends it with code.
func (r *validateRun) runJob(ctx context.Context, job *batchv1.Job, container string, code int32) error {
	if err := r.create(ctx, job); err != nil {
		return err
	}
	pod, err := r.e.createPod(ctx, job)
	if err != nil {
		return err
	}
	return r.e.finish(ctx, job, pod, container, code)
}

// create creates objs as the validate Pod, in order, remembering each for the clean-up and in
// the executor's record of what validate runs created.
func (r *validateRun) create(ctx context.Context, objs ...client.Object) error {
	for _, o := range objs {
		if err := r.as.Create(ctx, o); err != nil {
			return fmt.Errorf("create %T %s: %w", o, o.GetName(), err)
		}
		r.created = append(r.created, o)
		r.e.mu.Lock()
		r.e.runObjects = append(r.e.runObjects, fmt.Sprintf("%T %s", o, o.GetName()))
		r.e.mu.Unlock()
	}
	return nil
}

// ValidateRunObjects returns what the validate runs played so far created, as "<Go type>
// <name>" in order (the run's agent, input, identity and check objects).
func (e *Executor) ValidateRunObjects() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.runObjects...)
}

// cleanUp deletes what the run created, newest first, as the validate Pod, and the Pods of
// its Jobs as the garbage collector would.
func (r *validateRun) cleanUp(ctx context.Context) error {
	var errs []error
	for i := len(r.created) - 1; i >= 0; i-- {
		o := r.created[i]
		if err := r.as.Delete(ctx, o, client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
			errs = append(errs, fmt.Errorf("delete %T %s: %w", o, o.GetName(), err))
		}
		if _, ok := o.(*batchv1.Job); ok {
			errs = append(errs, r.e.collectPods(ctx, o.GetName()))
		}
	}
	return errors.Join(errs...)
}

// collectPods deletes the Pods of the Job named job as the garbage collector does.
func (e *Executor) collectPods(ctx context.Context, job string) error {
	pods := &corev1.PodList{}
	if err := e.c.List(ctx, pods, client.InNamespace(e.namespace), client.MatchingLabels{jobs.JobNameLabel: job}); err != nil {
		return fmt.Errorf("list the pods of %s: %w", job, err)
	}
	var errs []error
	for i := range pods.Items {
		errs = append(errs, client.IgnoreNotFound(e.collector.Delete(ctx, &pods.Items[i])))
	}
	return errors.Join(errs...)
}

// finish ends pod's one container with code as the kubelet does and the Job as the Job
// controller does.
func (e *Executor) finish(ctx context.Context, job *batchv1.Job, pod *corev1.Pod, container string, code int32) error {
	now := e.now()
	phase, reason := corev1.PodSucceeded, "Completed"
	if code != 0 {
		phase, reason = corev1.PodFailed, "Error"
	}
	pod.Status = corev1.PodStatus{Phase: phase, ContainerStatuses: []corev1.ContainerStatus{{
		Name: container, Image: pod.Spec.Containers[0].Image, ImageID: pod.Spec.Containers[0].Image,
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason, StartedAt: now, FinishedAt: now}},
	}}}
	if err := e.kubelet.Status().Update(ctx, pod); err != nil {
		return fmt.Errorf("set pod %s status: %w", pod.Name, err)
	}
	return e.setStatus(ctx, job, Result{ExitCode: code})
}

// checkExitCodes maps each test of a CTRF report to the exit code of the check container
// that reports it (CheckExitCode).
func checkExitCodes(report string) map[string]int32 {
	var doc struct {
		Results struct {
			Tests []struct {
				Name   string `json:"name"`
				Status string `json:"status"`
			} `json:"tests"`
		} `json:"results"`
	}
	codes := map[string]int32{}
	if json.Unmarshal([]byte(report), &doc) != nil {
		return codes
	}
	for _, t := range doc.Results.Tests {
		codes[t.Name] = CheckExitCode(t.Status)
	}
	return codes
}

// checkCodes are the exit codes of a check container AICR reads as a test status.
var checkCodes = map[string]int32{"passed": 0, "failed": 1, "skipped": 2}

// CheckExitCode is the exit code of a check container whose test AICR reports with status: 0
// passed, 1 failed, 2 skipped, 3 (anything else) other.
func CheckExitCode(status string) int32 {
	if code, ok := checkCodes[status]; ok {
		return code
	}
	return 3
}

// CheckStatus is the test status AICR reports for a check container's exit code.
func CheckStatus(code int32) string {
	for status, c := range checkCodes {
		if c == code {
			return status
		}
	}
	return "other"
}

// hexID is 8 random lower-case hex digits, as AICR names its runs and check Jobs.
func hexID() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// ValidateGrants are the validate identity serviceAccount in namespace bound to cluster-admin,
// for suites that run deployment validation without the chart (the chart binds the same).
func ValidateGrants(namespace, serviceAccount string) []client.Object {
	return []client.Object{
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: serviceAccount, Namespace: namespace}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: namespace + "-" + serviceAccount},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: serviceAccount, Namespace: namespace}}},
	}
}
