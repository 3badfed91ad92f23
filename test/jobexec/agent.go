package jobexec

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	authorizationv1 "k8s.io/api/authorization/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/ports"
)

// The snapshot contract the executor enforces (adapters/jobs package documentation): the
// operator runs AICR's snapshot agent itself, in the discovery namespace, as the pre-provisioned
// agent ServiceAccount, with AICR_AGENT_MODE=true, NODE_NAME from the downward API and a
// privileged container. The agent reads the cluster with its ServiceAccount's rights; a snapshot
// run any other way is `aicr snapshot` deploying its own agent, which needs rights to create a
// Job (and RBAC) in AICR's default namespace.

// Right is one API right (a SubjectAccessReview's resource attributes; Namespaced rights are
// asked in the Job's namespace).
type Right struct {
	Group, Resource, Verb string
	Namespaced            bool
}

// AgentRights are the rights AICR's snapshot agent uses (docs/design/aicr-cli.md section 5): its K8s
// collectors read Nodes, the Pods' images and the GPU Operator's ClusterPolicy, and it writes its
// output ConfigMap with a server-side apply. The chart grants aicr-snapshot-agent exactly these.
var AgentRights = []Right{
	{Resource: "nodes", Verb: "get"},
	{Resource: "nodes", Verb: "list"},
	{Resource: "pods", Verb: "list"},
	{Group: "nvidia.com", Resource: "clusterpolicies", Verb: "list"},
	{Resource: "configmaps", Verb: "get", Namespaced: true},
	{Resource: "configmaps", Verb: "patch", Namespaced: true},
}

// cliSnapshotRight is the first right `aicr snapshot` without agent mode needs: creating its
// agent Job in its default namespace.
var cliSnapshotRight = Right{Group: "batch", Resource: "jobs", Verb: "create", Namespaced: true}

// aicrDefaultNamespace is where `aicr snapshot` without --namespace deploys its agent.
const aicrDefaultNamespace = "default"

// ExpectSnapshotAgent makes the executor the discovery namespace's: every Job it plays must be
// AICR's snapshot agent running as serviceAccount. Call it before Run.
func (e *Executor) ExpectSnapshotAgent(serviceAccount string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.serviceAccount, e.agent = serviceAccount, true
}

// snapshotRun plays the snapshot contract for job: a failed Result when the run breaks it or its
// ServiceAccount lacks a right AICR would use, as AICR fails (exit 4, UNAUTHORIZED), with every
// contract breach recorded as a violation; a held Result when no Node matches the agent's node
// selector (the Pod would stay Pending); nil when the run may go on to the behavior. A refused
// run writes no output; version is the AICR version its failure line reports.
func (e *Executor) snapshotRun(ctx context.Context, job *batchv1.Job, version string) (*Result, error) {
	e.mu.Lock()
	agent := e.agent
	e.mu.Unlock()
	kind := ports.JobKind(job.Labels[jobs.KindLabel])
	switch {
	case agent && kind != ports.JobSnapshot:
		e.violate(fmt.Errorf("job %s: a %s Job in the discovery namespace %s, where only the snapshot agent runs", job.Name, kind, job.Namespace))
		return nil, nil
	case kind != ports.JobSnapshot:
		return nil, nil
	}
	pod := job.Spec.Template.Spec
	if !agent || !agentMode(pod) {
		e.violate(fmt.Errorf("job %s: a snapshot in namespace %s as %s without agent mode: aicr snapshot would deploy its own agent "+
			"Job into %q; the operator runs the agent itself in the discovery namespace as %s",
			job.Name, job.Namespace, pod.ServiceAccountName, aicrDefaultNamespace, jobs.AgentServiceAccount))
		return e.authorize(ctx, job, version, []Right{cliSnapshotRight}, aicrDefaultNamespace)
	}
	if c := pod.Containers[0]; c.SecurityContext == nil || c.SecurityContext.Privileged == nil || !*c.SecurityContext.Privileged {
		e.violate(fmt.Errorf("job %s: the snapshot agent is not privileged, it cannot read the node's devices", job.Name))
	}
	for _, gap := range AgentShapeGaps(pod) {
		// AICR v1's collectors log what they cannot read and skip it (Collected): the snapshot
		// is still written, without those measurements or with the image's OS.
		e.violate(fmt.Errorf("job %s: the snapshot agent %s", job.Name, gap))
	}
	if placed, err := e.schedulable(ctx, pod); err != nil || !placed {
		if err == nil {
			e.violate(fmt.Errorf("job %s: the snapshot agent's node selector %v matches no Node: the Pod would stay Pending", job.Name, pod.NodeSelector))
		}
		return &Result{Hold: true}, err
	}
	return e.authorize(ctx, job, version, AgentRights, job.Namespace)
}

// AgentShapeGaps lists how the Pod differs from the privileged agent `aicr snapshot` deploys
// (docs/design/aicr-cli.md section 5) in what its collectors read: the host's PID, network
// and IPC namespaces, root, and the node's /run/systemd and /etc/os-release mounted
// read-only (without the latter the OS collector reads the image's own file, so the snapshot
// reports the image's OS, not the node's). Nil for the agent's shape.
func AgentShapeGaps(pod corev1.PodSpec) []string {
	var gaps []string
	if !pod.HostPID || !pod.HostNetwork || !pod.HostIPC {
		gaps = append(gaps, "does not share the host's PID, network and IPC namespaces")
	}
	c := aicrContainer(&pod)
	if sc := c.SecurityContext; sc == nil || sc.RunAsUser == nil || *sc.RunAsUser != 0 {
		if psc := pod.SecurityContext; psc == nil || psc.RunAsUser == nil || *psc.RunAsUser != 0 {
			gaps = append(gaps, "does not run as root")
		}
	}
	for path, t := range map[string]corev1.HostPathType{jobs.AgentOSReleasePath: corev1.HostPathFile, jobs.AgentSystemdPath: corev1.HostPathDirectory} {
		if !hostMounted(pod, c, path, t) {
			gaps = append(gaps, fmt.Sprintf("does not mount the node's %s read-only: it would read the image's own", path))
		}
	}
	slices.Sort(gaps)
	return gaps
}

// hostMounted reports whether container c mounts the node's path (a hostPath volume of type t)
// read-only at the same path.
func hostMounted(pod corev1.PodSpec, c *corev1.Container, path string, t corev1.HostPathType) bool {
	for _, m := range c.VolumeMounts {
		if m.MountPath != path || !m.ReadOnly {
			continue
		}
		for _, v := range pod.Volumes {
			if hp := v.HostPath; v.Name == m.Name && hp != nil && hp.Path == path && hp.Type != nil && *hp.Type == t {
				return true
			}
		}
	}
	return false
}

// schedulable reports whether the agent Pod is pinned to nodes (a node selector, as the
// accelerated group's) and one Node matches it, as the scheduler would need.
func (e *Executor) schedulable(ctx context.Context, pod corev1.PodSpec) (bool, error) {
	if len(pod.NodeSelector) == 0 {
		return false, nil
	}
	nodes := &corev1.NodeList{}
	if err := e.c.List(ctx, nodes, client.MatchingLabels(pod.NodeSelector)); err != nil {
		return false, fmt.Errorf("list nodes: %w", err)
	}
	return len(nodes.Items) > 0, nil
}

// agentMode reports whether the Pod runs AICR as its snapshot agent: AICR_AGENT_MODE=true and
// NODE_NAME from the downward API.
func agentMode(pod corev1.PodSpec) bool {
	if len(pod.Containers) != 1 {
		return false
	}
	var mode, node bool
	for _, env := range pod.Containers[0].Env {
		switch env.Name {
		case jobs.AgentModeEnv:
			mode = env.Value == "true"
		case jobs.NodeNameEnv:
			node = env.ValueFrom != nil && env.ValueFrom.FieldRef != nil && env.ValueFrom.FieldRef.FieldPath == "spec.nodeName"
		}
	}
	return mode && node
}

// authorize asks the API server, with one SubjectAccessReview per right, whether the Job's
// ServiceAccount holds rights (namespaced ones in namespace). The first right it lacks fails the
// run as AICR does: exit 4 with its JSON "command failed" line naming the refused request.
func (e *Executor) authorize(ctx context.Context, job *batchv1.Job, version string, rights []Right, namespace string) (*Result, error) {
	sa := job.Spec.Template.Spec.ServiceAccountName
	user := "system:serviceaccount:" + job.Namespace + ":" + sa
	for _, r := range rights {
		attrs := &authorizationv1.ResourceAttributes{Group: r.Group, Resource: r.Resource, Verb: r.Verb}
		scope := "at the cluster scope"
		if r.Namespaced {
			attrs.Namespace = namespace
			scope = "in the namespace " + strconv.Quote(namespace)
		}
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: user, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + job.Namespace, "system:authenticated"},
			ResourceAttributes: attrs,
		}}
		if err := e.c.Create(ctx, review); err != nil {
			return nil, fmt.Errorf("subject access review for %s: %w", user, err)
		}
		if !review.Status.Allowed {
			msg := fmt.Sprintf("[UNAUTHORIZED] snapshot: %s is forbidden: User %q cannot %s resource %q in API group %q %s",
				r.Resource, user, r.Verb, r.Resource, r.Group, scope)
			return &Result{ExitCode: 4, Log: commandFailed(version, 4, msg)}, nil
		}
	}
	return nil, nil
}

// commandFailed is AICR's last JSON log line of a failed command (docs/design/aicr-cli.md section 3).
func commandFailed(version string, code int, msg string) string {
	return fmt.Sprintf(`{"level":"ERROR","msg":"command failed","module":"aicr","version":%q,"error":%q,"exitCode":%d}`,
		version, msg, code)
}

// AgentGrants are the ServiceAccount serviceAccount in namespace with AgentRights granted, for
// suites that run the snapshot agent without the chart (the chart grants the same rights).
func AgentGrants(namespace, serviceAccount string) []client.Object {
	var cluster, local []rbacv1.PolicyRule
	for _, r := range AgentRights {
		rule := rbacv1.PolicyRule{APIGroups: []string{r.Group}, Resources: []string{r.Resource}, Verbs: []string{r.Verb}}
		if r.Namespaced {
			local = append(local, rule)
		} else {
			cluster = append(cluster, rule)
		}
	}
	meta := metav1.ObjectMeta{Name: serviceAccount, Namespace: namespace}
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: serviceAccount, Namespace: namespace}}
	return []client.Object{
		&corev1.ServiceAccount{ObjectMeta: meta},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: namespace + "-" + serviceAccount}, Rules: cluster},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: namespace + "-" + serviceAccount},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: namespace + "-" + serviceAccount},
			Subjects: subjects},
		&rbacv1.Role{ObjectMeta: meta, Rules: local},
		&rbacv1.RoleBinding{ObjectMeta: meta, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: serviceAccount},
			Subjects: subjects},
	}
}
