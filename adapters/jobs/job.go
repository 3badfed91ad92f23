package jobs

import (
	"maps"
	"slices"
	"unicode/utf8"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/NVIDIA/aicr/ports"
)

// job builds the batch/v1 Job of spec: pinned image, aicr-jobs identity, no
// retries inside the Job (the resolver retries), the inputs ConfigMap and the
// optional credential Secret mounted read-only, and the installation's pod
// settings (deadline, resources, scheduling, image pull Secrets).
func (r *Runner) job(spec ports.JobSpec) *batchv1.Job {
	volumes := []corev1.Volume{{
		Name: "inputs",
		VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: InputsName(spec.Name)},
		}},
	}}
	mounts := []corev1.VolumeMount{{Name: "inputs", MountPath: InputsDir, ReadOnly: true}}
	env := make([]corev1.EnvVar, 0, len(r.cfg.Env)+2)
	for _, name := range slices.Sorted(maps.Keys(r.cfg.Env)) {
		env = append(env, corev1.EnvVar{Name: name, Value: r.cfg.Env[name]})
	}
	// ports.JobUIDArg: the kubelet expands $(AICR_JOB_UID) in the arguments to the UID the Job
	// controller labels the Job's Pods with.
	env = append(env, corev1.EnvVar{Name: JobUIDEnv, ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['" + batchv1.ControllerUidLabel + "']"}}})
	if len(spec.Credentials) > 0 {
		volumes = append(volumes, corev1.Volume{
			Name: "registry",
			VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
				SecretName: RegistryName(spec.Name),
				Items:      []corev1.KeyToPath{{Key: corev1.DockerConfigJsonKey, Path: "config.json"}},
			}},
		})
		mounts = append(mounts, corev1.VolumeMount{Name: "registry", MountPath: RegistryDir, ReadOnly: true})
		env = append(env, corev1.EnvVar{Name: "DOCKER_CONFIG", Value: RegistryDir})
	}
	pod := r.cfg.Pod
	var deadline *int64
	if pod.ActiveDeadlineSeconds > 0 {
		deadline = ptr.To(pod.ActiveDeadlineSeconds)
	}
	pullSecrets := make([]corev1.LocalObjectReference, 0, len(pod.ImagePullSecrets))
	for _, name := range pod.ImagePullSecrets {
		pullSecrets = append(pullSecrets, corev1.LocalObjectReference{Name: name})
	}
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name: spec.Name, Namespace: r.cfg.Namespace, Labels: labels(spec), Annotations: annotations(spec),
		},
		Spec: batchv1.JobSpec{
			Suspend:                 ptr.To(true),
			BackoffLimit:            ptr.To[int32](0),
			ActiveDeadlineSeconds:   deadline,
			TTLSecondsAfterFinished: ptr.To(TTLFinished),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels(spec)},
				Spec: corev1.PodSpec{
					ServiceAccountName: r.cfg.ServiceAccount,
					RestartPolicy:      corev1.RestartPolicyNever,
					NodeSelector:       pod.NodeSelector,
					Tolerations:        pod.Tolerations,
					ImagePullSecrets:   pullSecrets,
					// The Job namespaces enforce the restricted Pod Security profile.
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   ptr.To(true),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Volumes: volumes,
					Containers: []corev1.Container{{
						Name:                     ContainerName,
						Image:                    r.cfg.Image,
						Args:                     spec.Args,
						Env:                      env,
						Resources:                pod.Resources,
						VolumeMounts:             mounts,
						TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
						SecurityContext: &corev1.SecurityContext{
							AllowPrivilegeEscalation: ptr.To(false),
							RunAsNonRoot:             ptr.To(true),
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
							SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
						},
					}},
				},
			},
		},
	}
	if len(pod.NodeSelector) == 0 {
		placeJob(&job.Spec.Template.Spec, spec.Placement)
	}
	if imageRefsArgs(spec.Args) {
		handBackImageRefs(&job.Spec.Template.Spec, r.cfg.CopierImage)
	}
	if r.cfg.Agent {
		agentPod(&job.Spec.Template.Spec)
	}
	return job
}

// placeJob sets the Pod's node selector from the spec's placement and adds its tolerations.
// It is used only when the installation names no node selector of its own.
func placeJob(pod *corev1.PodSpec, pl *ports.JobPlacement) {
	if pl == nil {
		return
	}
	if len(pl.NodeSelector) > 0 {
		pod.NodeSelector = map[string]string{}
		for k, v := range pl.NodeSelector {
			pod.NodeSelector[k] = v
		}
	}
	for _, t := range pl.Tolerations {
		pod.Tolerations = append(pod.Tolerations, corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOperator(t.Operator),
			Value: t.Value, Effect: corev1.TaintEffect(t.Effect)})
	}
}

// agentPod makes the Pod AICR's snapshot agent in the shape `aicr snapshot` deploys its own
// privileged agent (docs/design/aicr-cli.md section 5): AICR_AGENT_MODE=true, NODE_NAME from the
// downward API; the host's PID, network and IPC namespaces; root with SYS_ADMIN and SYS_CHROOT
// in a privileged container (it reads the node's devices, kernel and services); the host's
// /run/systemd and /etc/os-release read-only, so the OS it reports is the node's, not the
// image's; /tmp an emptyDir. The discovery namespace is privileged for it.
func agentPod(pod *corev1.PodSpec) {
	pod.HostPID, pod.HostNetwork, pod.HostIPC = true, true, true
	pod.SecurityContext = &corev1.PodSecurityContext{RunAsUser: ptr.To[int64](0), RunAsGroup: ptr.To[int64](0),
		FSGroup: ptr.To[int64](0), FSGroupChangePolicy: ptr.To(corev1.FSGroupChangeOnRootMismatch)}
	pod.Volumes = append(pod.Volumes,
		hostPath(AgentSystemdVolume, AgentSystemdPath, corev1.HostPathDirectory),
		hostPath(AgentOSReleaseVolume, AgentOSReleasePath, corev1.HostPathFile),
		corev1.Volume{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	c := &pod.Containers[0]
	c.Env = append(c.Env,
		corev1.EnvVar{Name: AgentModeEnv, Value: "true"},
		corev1.EnvVar{Name: NodeNameEnv, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}})
	c.VolumeMounts = append(c.VolumeMounts,
		corev1.VolumeMount{Name: AgentSystemdVolume, MountPath: AgentSystemdPath, ReadOnly: true},
		corev1.VolumeMount{Name: AgentOSReleaseVolume, MountPath: AgentOSReleasePath, ReadOnly: true},
		corev1.VolumeMount{Name: "tmp", MountPath: "/tmp"})
	c.SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true), RunAsUser: ptr.To[int64](0), RunAsGroup: ptr.To[int64](0),
		AllowPrivilegeEscalation: ptr.To(true), Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"SYS_ADMIN", "SYS_CHROOT"}}}
}

// hostPath is a volume of the node's path of type t.
func hostPath(name, path string, t corev1.HostPathType) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: path, Type: &t}}}
}

// splitInputs stores UTF-8 inputs as data (readable with kubectl) and the rest as binaryData.
func splitInputs(in map[string][]byte) (map[string]string, map[string][]byte) {
	data, bin := map[string]string{}, map[string][]byte{}
	for k, v := range in {
		if utf8.Valid(v) {
			data[k] = string(v)
		} else {
			bin[k] = v
		}
	}
	return data, bin
}
