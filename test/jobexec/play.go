package jobexec

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/ports"
)

// errNotReady means the Job's run-scoped objects do not exist yet.
var errNotReady = errors.New("run-scoped objects not created yet")

// play asserts the Job's spec, runs the behavior and records the result.
func (e *Executor) play(ctx context.Context, job *batchv1.Job) error {
	out, in := &corev1.ConfigMap{}, &corev1.ConfigMap{}
	for name, obj := range map[string]*corev1.ConfigMap{jobs.OutputName(job.Name): out, jobs.InputsName(job.Name): in} {
		if err := e.c.Get(ctx, client.ObjectKey{Namespace: job.Namespace, Name: name}, obj); err != nil {
			if apierrors.IsNotFound(err) {
				return errNotReady
			}
			return err
		}
	}
	objs := []client.Object{out, in}
	var secret *corev1.Secret
	if usesRegistry(job) {
		secret = &corev1.Secret{}
		if err := e.c.Get(ctx, client.ObjectKey{Namespace: job.Namespace, Name: jobs.RegistryName(job.Name)}, secret); err != nil {
			return errNotReady
		}
		objs = append(objs, secret)
	}
	e.mu.Lock()
	serviceAccount := e.serviceAccount
	e.mu.Unlock()
	if err := e.assertSpec(job, objs, serviceAccount); err != nil {
		e.violate(fmt.Errorf("job %s: %w", job.Name, err))
	}
	e.mu.Lock()
	behavior := e.behavior
	e.mu.Unlock()
	res := behavior(job, in)
	switch {
	case res.Hold:
		return nil
	case res.Waiting != nil && res.Waiting.Reason == ports.JobPodNotCreated:
		return e.start(ctx, job)
	}
	pod, err := e.createPod(ctx, job)
	if err != nil {
		return err
	}
	if res.Waiting != nil {
		return e.wait(ctx, job, pod, *res.Waiting)
	}
	refused, err := e.snapshotRun(ctx, job, res.Version)
	if err != nil {
		return err
	}
	if refused != nil && refused.Hold {
		return nil
	}
	if refused != nil {
		res = *refused
	} else if ports.JobKind(job.Labels[jobs.KindLabel]) == ports.JobSnapshot {
		if res, err = collect(pod.Spec, res); err != nil {
			return err
		}
	} else if refused, err = e.playValidate(ctx, job, pod, in, res); err != nil {
		return err
	} else if refused != nil {
		res = *refused
	}
	e.mu.Lock()
	e.executed = append(e.executed, job.Name)
	e.mu.Unlock()
	if res.Kill != "" && res.ExitCode == 0 {
		res.ExitCode = 137
	}
	return e.run(ctx, job, pod, out, secret, res)
}

// run plays what the Pod does with res: the push or the output AICR writes, a lost output,
// the containers' ends and the Job's status.
func (e *Executor) run(ctx context.Context, job *batchv1.Job, pod *corev1.Pod, out *corev1.ConfigMap, secret *corev1.Secret, res Result) error {
	emptyDir, err := os.MkdirTemp("", "image-refs-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(emptyDir) }()
	dest, toRegistry := ociOutput(job)
	var refsFile string
	switch refused := PrePush(&job.Spec.Template.Spec); {
	case !toRegistry || res.ExitCode != 0:
	case res.Bundle != nil:
		res, refsFile = pushBundle(ctx, job, secret, dest, emptyDir, res)
	case res.ImageRefs != "" && refused != nil:
		res = *refused
	case res.ImageRefs != "":
		res, refsFile = publishImageRefs(job, emptyDir, res)
	}
	if !toRegistry {
		if res, err = e.writeOutput(ctx, job, pod, out, res); err != nil {
			return err
		}
	}
	if res.LoseOutput {
		if err = e.collector.Delete(ctx, out); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("lose the output as the garbage collector: %w", err)
		}
	}
	if res, err = e.terminate(ctx, pod, res, refsFile); err != nil {
		return err
	}
	return e.setStatus(ctx, job, res)
}

// assertCopier checks the image-refs container of a Pod that hands AICR's image refs back:
// the operator's image running its copy command over the --image-refs file, from the
// emptyDir the AICR init container writes, mounted read-only.
func (e *Executor) assertCopier(pod *corev1.PodSpec) error {
	c := pod.Containers[0]
	target := argValue(aicrContainer(pod).Args, "--image-refs")
	var errs []error
	if c.Name != jobs.ImageRefsContainerName || c.Image != e.copier || len(c.Command) > 0 ||
		!slices.Equal(c.Args, []string{jobs.CopyImageRefsCommand, target}) {
		errs = append(errs, fmt.Errorf("image-refs container %s runs %q %v %v, want %q %v", c.Name, c.Image, c.Command, c.Args,
			e.copier, []string{jobs.CopyImageRefsCommand, target}))
	}
	if c.TerminationMessagePolicy != corev1.TerminationMessageFallbackToLogsOnError {
		errs = append(errs, fmt.Errorf("image-refs container terminationMessagePolicy %q", c.TerminationMessagePolicy))
	}
	shared := slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool {
		return m.ReadOnly && m.MountPath == path.Dir(target) && slices.ContainsFunc(aicrContainer(pod).VolumeMounts,
			func(a corev1.VolumeMount) bool { return a.Name == m.Name && a.MountPath == m.MountPath })
	})
	if !shared {
		errs = append(errs, fmt.Errorf("image-refs container does not mount AICR's %s read-only: %v", path.Dir(target), c.VolumeMounts))
	}
	return errors.Join(errs...)
}

func usesRegistry(job *batchv1.Job) bool {
	for _, v := range job.Spec.Template.Spec.Volumes {
		if v.Secret != nil {
			return true
		}
	}
	return false
}

// assertSpec checks the Job spec the operator promises (image pinned by digest, args,
// identity, TTL, owners of the run-scoped objects); the Job runs as serviceAccount.
func (e *Executor) assertSpec(job *batchv1.Job, objs []client.Object, serviceAccount string) error {
	pod := job.Spec.Template.Spec
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(len(pod.Containers) == 1, "want one container, got %d", len(pod.Containers))
	if handsBack(&pod) && len(pod.Containers) == 1 {
		errs = append(errs, e.assertCopier(&pod))
	} else {
		check(len(pod.InitContainers) == 0, "want no init container, got %d", len(pod.InitContainers))
	}
	if len(pod.Containers) == 1 {
		c := *aicrContainer(&pod)
		check(c.Image == e.image, "image %q, want the pinned %q", c.Image, e.image)
		check(slices.Contains(c.Args, "--log-json"), "args %v lack --log-json", c.Args)
		i := slices.Index(c.Args, "-o")
		_, toRegistry := ociOutput(job)
		check(i >= 0 && i+1 < len(c.Args) && (c.Args[i+1] == "cm://"+job.Namespace+"/"+jobs.OutputName(job.Name) ||
			toRegistry && job.Labels[jobs.KindLabel] == string(ports.JobBundle)),
			"args %v write neither the output ConfigMap nor (a bundle) to a registry", c.Args)
		check(c.TerminationMessagePolicy == corev1.TerminationMessageFallbackToLogsOnError, "terminationMessagePolicy %q", c.TerminationMessagePolicy)
	}
	check(pod.ServiceAccountName == serviceAccount, "serviceAccountName %q, want %q", pod.ServiceAccountName, serviceAccount)
	check(pod.RestartPolicy == corev1.RestartPolicyNever, "restartPolicy %q", pod.RestartPolicy)
	if e.nodeSelector != nil && !maps.Equal(pod.NodeSelector, e.nodeSelector) {
		errs = append(errs, fmt.Errorf("nodeSelector %v, want %v: %w", pod.NodeSelector, e.nodeSelector, ErrMisplaced))
	}
	ttl := job.Spec.TTLSecondsAfterFinished
	check(ttl != nil && (*ttl == jobs.TTLFinished || *ttl == jobs.TTLStalled), "ttlSecondsAfterFinished %v", ttl)
	for _, o := range objs {
		refs := o.GetOwnerReferences()
		check(len(refs) == 1 && refs[0].UID == job.UID && refs[0].Kind == "Job" && refs[0].Controller != nil && *refs[0].Controller,
			"%s is not owned by the job: %v", o.GetName(), refs)
	}
	return errors.Join(errs...)
}

// writeOutput writes the result into the output ConfigMap as the Job's Pod does: with AICR's
// cm:// output (ApplyOutput) under the Pod's ServiceAccount and pod-name claim. It returns the
// result the Pod ends with: AICR's INTERNAL failure when the API server refuses the write.
func (e *Executor) writeOutput(ctx context.Context, job *batchv1.Job, pod *corev1.Pod, out *corev1.ConfigMap, res Result) (Result, error) {
	data, err := artifactData(job, res, e.now().Time)
	if err != nil {
		return res, err
	}
	if data == nil && res.Bundle == nil {
		return res, nil
	}
	c, err := e.asPod(pod.Spec.ServiceAccountName, pod.Name, string(pod.UID))
	if err != nil {
		return res, err
	}
	refused, err := ApplyOutput(ctx, c, out.Namespace, out.Name, data, res.Bundle)
	if err != nil {
		return res, fmt.Errorf("write output as pod %s: %w", pod.Name, err)
	}
	if refused != nil {
		return *refused, nil
	}
	return res, nil
}

// createPod returns the Job's Pod, creating it as the Job controller does (generateName
// "<job>-", owned by the Job, the Job's Pod template) when the Job has none yet.
func (e *Executor) createPod(ctx context.Context, job *batchv1.Job) (*corev1.Pod, error) {
	pods := &corev1.PodList{}
	if err := e.c.List(ctx, pods, client.InNamespace(job.Namespace), client.MatchingLabels{jobs.JobNameLabel: job.Name}); err != nil {
		return nil, fmt.Errorf("list pods: %w", err)
	}
	for i := range pods.Items {
		if metav1.IsControlledBy(&pods.Items[i], job) {
			return &pods.Items[i], nil
		}
	}
	labels := map[string]string{jobs.JobNameLabel: job.Name}
	for k, v := range job.Spec.Template.Labels {
		labels[k] = v
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: job.Name + "-", Namespace: job.Namespace, Labels: labels,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))},
		},
		Spec: job.Spec.Template.Spec,
	}
	// Bound to the simulated kubelet's own node, so a real scheduler and kwok leave it alone.
	pod.Spec.NodeName = Node
	if err := e.jobController.Create(ctx, pod); err != nil {
		return nil, fmt.Errorf("create pod as the job controller: %w", err)
	}
	return pod, nil
}

// terminate sets the Pod's containers to terminated as the kubelet does: the AICR container
// with the result's exit code and log tail, and in a Pod that hands its image refs back,
// after an AICR init container that exited 0, the image-refs container as PlayCopier runs it
// over refsFile. It returns the result the Pod ended with.
func (e *Executor) terminate(ctx context.Context, pod *corev1.Pod, res Result, refsFile string) (Result, error) {
	now := e.now()
	ended := func(name, image string, code int32, msg string) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: name, Image: image, ImageID: image,
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: code, Message: msg, StartedAt: now, FinishedAt: now,
				Reason: map[bool]string{true: "Completed", false: "Error"}[code == 0],
			}}}
	}
	aicr := ended(jobs.ContainerName, e.image, res.ExitCode, res.Log)
	pod.Status = corev1.PodStatus{Phase: corev1.PodSucceeded, ContainerStatuses: []corev1.ContainerStatus{aicr}}
	if handsBack(&pod.Spec) {
		pod.Status.InitContainerStatuses = pod.Status.ContainerStatuses
		copier := corev1.ContainerStatus{Name: jobs.ImageRefsContainerName, Image: e.copier,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}}
		if res.ExitCode == 0 && res.Kill == "" {
			code, msg := PlayCopier(refsFile)
			copier = ended(jobs.ImageRefsContainerName, e.copier, code, msg)
			res.ExitCode, res.Log = code, msg
		}
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{copier}
	}
	if res.ExitCode != 0 {
		pod.Status.Phase = corev1.PodFailed
	}
	killed(&pod.Status, res.Kill, now)
	if err := e.kubelet.Status().Update(ctx, pod); err != nil {
		return res, fmt.Errorf("set pod status: %w", err)
	}
	return res, nil
}

// setStatus finishes the Job as the Job controller would (Kubernetes 1.34
// status rules: startTime, SuccessCriteriaMet or FailureTarget before
// Complete or Failed, completionTime only on success).
func (e *Executor) setStatus(ctx context.Context, job *batchv1.Job, res Result) error {
	now := e.now()
	cond := func(t batchv1.JobConditionType, reason string) batchv1.JobCondition {
		return batchv1.JobCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason, LastProbeTime: now, LastTransitionTime: now}
	}
	if job.Status.StartTime == nil {
		job.Status.StartTime = &now
	}
	job.Status.Active = 0
	if res.ExitCode == 0 {
		job.Status.Succeeded, job.Status.CompletionTime = 1, &now
		job.Status.Conditions = []batchv1.JobCondition{
			cond(batchv1.JobSuccessCriteriaMet, batchv1.JobReasonCompletionsReached),
			cond(batchv1.JobComplete, batchv1.JobReasonCompletionsReached),
		}
	} else {
		reason := batchv1.JobReasonBackoffLimitExceeded
		if res.DeadlineExceeded {
			reason = batchv1.JobReasonDeadlineExceeded
		}
		job.Status.Failed = 1
		job.Status.Conditions = []batchv1.JobCondition{cond(batchv1.JobFailureTarget, reason), cond(batchv1.JobFailed, reason)}
	}
	if err := e.jobController.Status().Update(ctx, job); err != nil {
		return fmt.Errorf("set job status: %w", err)
	}
	return nil
}
