package ports

import "context"

// Workload is a running Pod that a disruptive step must not disrupt.
type Workload struct {
	Namespace string
	Name      string
	// Node is the node the Pod runs on.
	Node string
}

// String returns "<namespace>/<name> on <node>".
func (w Workload) String() string { return w.Namespace + "/" + w.Name + " on " + w.Node }

// WorkloadQuery selects the protected workloads on the nodes a step can disrupt.
type WorkloadQuery struct {
	// PodSelector is a label selector in Kubernetes selector syntax ("app=train,tier in (a,b)").
	PodSelector string
	// Namespaces limits the search (empty: every namespace).
	Namespaces []string
	// NodeSelector selects the nodes the step can disrupt by label.
	NodeSelector map[string]string
}

// WorkloadFinder finds protected workloads. It only reads: the operator never evicts or
// drains anything.
type WorkloadFinder interface {
	// Running returns the Pods q.PodSelector selects in q.Namespaces that are bound to a node
	// q.NodeSelector selects and have not finished (phase neither Succeeded nor Failed), sorted
	// by namespace and name. The caller hands it a selector it parsed.
	Running(ctx context.Context, q WorkloadQuery) ([]Workload, error)
}
