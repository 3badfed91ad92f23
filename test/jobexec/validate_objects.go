package jobexec

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The labels and names AICR v1 gives the objects of one `aicr validate` run.
const (
	RunIDLabel       = "aicr.run/run-id"
	jobTypeLabel     = "aicr.run/job-type"
	validatorLabel   = "aicr.run/validator"
	phaseLabel       = "aicr.run/phase"
	nameLabel        = "app.kubernetes.io/name"
	componentLabel   = "app.kubernetes.io/component"
	managedByLabel   = "app.kubernetes.io/managed-by"
	agentPrefix      = "aicr-validate-"
	nodeReaderPrefix = "aicr-node-reader-"
	validatorPrefix  = "aicr-validator-"
	snapshotPrefix   = "aicr-snapshot-"
	recipePrefix     = "aicr-recipe-"
	gpuPresentLabel  = "nvidia.com/gpu.present"
)

// runMeta is the metadata of a run-scoped object name of run in namespace ("" at the cluster
// scope).
func runMeta(name, namespace, run, component string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: namespace,
		Labels: map[string]string{nameLabel: "aicr", componentLabel: component, RunIDLabel: run}}
}

// AgentRBAC is what `aicr validate` creates for its snapshot agent: the run's ServiceAccount,
// a Role writing its ConfigMap and reading Pods, and a read-only ClusterRole over the nodes,
// Pods, Services, the GPU Operator's ClusterPolicy and the Slinky and MariaDB resources.
func AgentRBAC(namespace, run string) []client.Object {
	name, reader := agentPrefix+run, nodeReaderPrefix+run
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: namespace}}
	read := []string{"get", "list"}
	return []client.Object{
		&corev1.ServiceAccount{ObjectMeta: runMeta(name, namespace, run, "snapshot-agent")},
		&rbacv1.Role{ObjectMeta: runMeta(name, namespace, run, "snapshot-agent"), Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"create", "get", "update", "patch"}},
			{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: read},
		}},
		&rbacv1.RoleBinding{ObjectMeta: runMeta(name, namespace, run, "snapshot-agent"),
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name}, Subjects: subjects},
		&rbacv1.ClusterRole{ObjectMeta: runMeta(reader, "", run, "snapshot-agent"), Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"nodes", "pods", "services"}, Verbs: read},
			{APIGroups: []string{"nvidia.com"}, Resources: []string{"clusterpolicies"}, Verbs: read},
			{APIGroups: []string{"slinky.slurm.net"}, Resources: []string{"controllers", "nodesets", "loginsets", "restapis", "accountings"}, Verbs: read},
			{APIGroups: []string{"k8s.mariadb.com"}, Resources: []string{"mariadbs"}, Verbs: read},
		}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: runMeta(reader, "", run, "snapshot-agent"),
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: reader}, Subjects: subjects},
	}
}

// ValidatorRBAC is the run's validator ServiceAccount and its cluster-admin binding.
func ValidatorRBAC(namespace, run string) []client.Object {
	name := validatorPrefix + run
	meta := runMeta(name, namespace, run, "validation")
	meta.Labels[nameLabel] = "aicr-validator"
	binding := runMeta(name, "", run, "validation")
	binding.Labels[nameLabel] = "aicr-validator"
	return []client.Object{
		&corev1.ServiceAccount{ObjectMeta: meta},
		&rbacv1.ClusterRoleBinding{ObjectMeta: binding,
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: namespace}}},
	}
}

// AgentJob is the privileged snapshot agent `aicr validate` deploys without -s: image in agent
// mode, writing its snapshot to the run's snapshot ConfigMap, on a GPU node, tolerating all.
func AgentJob(namespace, run, image string) *batchv1.Job {
	name := agentPrefix + run
	dir, file := corev1.HostPathDirectory, corev1.HostPathFile
	meta := runMeta(name, namespace, run, "snapshot-agent")
	return &batchv1.Job{ObjectMeta: meta, Spec: batchv1.JobSpec{
		Completions: ptr.To[int32](1), Parallelism: ptr.To[int32](1), BackoffLimit: ptr.To[int32](0),
		TTLSecondsAfterFinished: ptr.To[int32](3600), ActiveDeadlineSeconds: ptr.To[int64](600),
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: meta.Labels}, Spec: corev1.PodSpec{
			ServiceAccountName: name, RestartPolicy: corev1.RestartPolicyNever,
			HostPID: true, HostNetwork: true, HostIPC: true,
			NodeSelector: map[string]string{gpuPresentLabel: "true"},
			Tolerations:  []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			SecurityContext: &corev1.PodSecurityContext{RunAsUser: ptr.To[int64](0), RunAsGroup: ptr.To[int64](0),
				FSGroup: ptr.To[int64](0), FSGroupChangePolicy: ptr.To(corev1.FSGroupChangeOnRootMismatch)},
			Volumes: []corev1.Volume{
				{Name: "run-systemd", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/run/systemd", Type: &dir}}},
				{Name: "os-release", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/etc/os-release", Type: &file}}},
				{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			},
			Containers: []corev1.Container{{
				Name: "aicr", Image: image, Command: []string{"aicr"},
				Args: []string{"snapshot", "-o", "cm://" + namespace + "/" + snapshotPrefix + run},
				Env: []corev1.EnvVar{{Name: "AICR_AGENT_MODE", Value: "true"}, {Name: "AICR_LOG_PREFIX", Value: "agent"},
					{Name: "NODE_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}}},
				Resources: corev1.ResourceRequirements{
					Requests: resources("1", "4Gi", "2Gi"), Limits: resources("2", "8Gi", "4Gi")},
				SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(true), RunAsUser: ptr.To[int64](0), RunAsGroup: ptr.To[int64](0),
					AllowPrivilegeEscalation: ptr.To(true), Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"SYS_ADMIN", "SYS_CHROOT"}}},
				VolumeMounts: []corev1.VolumeMount{{Name: "run-systemd", MountPath: "/run/systemd", ReadOnly: true},
					{Name: "os-release", MountPath: "/etc/os-release", ReadOnly: true}, {Name: "tmp", MountPath: "/tmp"}},
			}},
		}},
	}}
}

// CheckJob is the Job of one check of the run: the check's image as container validator with
// the check's arguments, the run's validator identity, the snapshot and recipe ConfigMaps
// mounted, preferring nodes without a GPU.
func CheckJob(namespace, run, name, image string, c Check, deadline int64) *batchv1.Job {
	meta := runMeta(name, namespace, run, "validation")
	meta.Labels[managedByLabel], meta.Labels[jobTypeLabel] = "aicr", "validation"
	meta.Labels[validatorLabel], meta.Labels[phaseLabel] = c.Name, c.Phase
	cm := func(vol, cmName string) corev1.Volume {
		return corev1.Volume{Name: vol, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: cmName}}}}
	}
	env := []corev1.EnvVar{
		{Name: "AICR_SNAPSHOT_PATH", Value: "/data/snapshot/snapshot.yaml"}, {Name: "AICR_RECIPE_PATH", Value: "/data/recipe/recipe.yaml"},
		{Name: "AICR_VALIDATOR_NAME", Value: c.Name}, {Name: "AICR_VALIDATOR_PHASE", Value: c.Phase}, {Name: "AICR_RUN_ID", Value: run},
		{Name: "AICR_NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
	}
	both := resources("1", "1Gi", "")
	noGPU := corev1.PreferredSchedulingTerm{Weight: 100, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: gpuPresentLabel, Operator: corev1.NodeSelectorOpDoesNotExist}}}}
	return &batchv1.Job{ObjectMeta: meta, Spec: batchv1.JobSpec{
		BackoffLimit: ptr.To[int32](0), ActiveDeadlineSeconds: ptr.To(deadline),
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: meta.Labels}, Spec: corev1.PodSpec{
			ServiceAccountName: validatorPrefix + run, RestartPolicy: corev1.RestartPolicyNever,
			Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{noGPU}}},
			Volumes: []corev1.Volume{cm("snapshot", snapshotPrefix+run), cm("recipe", recipePrefix+run)},
			Containers: []corev1.Container{{
				Name: "validator", Image: image, Args: c.Args, Env: env,
				Resources:                corev1.ResourceRequirements{Requests: both, Limits: both},
				TerminationMessagePath:   corev1.TerminationMessagePathDefault,
				TerminationMessagePolicy: corev1.TerminationMessageReadFile,
				VolumeMounts: []corev1.VolumeMount{{Name: "snapshot", MountPath: "/data/snapshot", ReadOnly: true},
					{Name: "recipe", MountPath: "/data/recipe", ReadOnly: true}},
			}},
		}},
	}}
}

// resources is a resource list of cpu, memory and (when set) ephemeral storage.
func resources(cpu, memory, ephemeral string) corev1.ResourceList {
	out := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}
	if ephemeral != "" {
		out[corev1.ResourceEphemeralStorage] = resource.MustParse(ephemeral)
	}
	return out
}
