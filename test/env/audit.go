package env

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// auditPolicy records every write (create, update, patch, delete) at the Metadata level:
// who wrote what, with which user agent and answer, without the bodies; %s is the rules of
// the writes recorded with their bodies (AuditBodies), which come first.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
%s- level: Metadata
  verbs: ["create", "update", "patch", "delete", "deletecollection"]
- level: None
`

// AuditEvent is the part of a kube-apiserver audit event the suites count writes by.
type AuditEvent struct {
	Verb      string `json:"verb"`
	UserAgent string `json:"userAgent"`
	User      struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		APIGroup    string `json:"apiGroup"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
	} `json:"objectRef"`
	ResponseStatus struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	StageTimestamp string `json:"stageTimestamp"`
	// RequestObject and ResponseObject are the bodies of a write Options.AuditBodies names
	// (a patch's request is the patch); empty for the others.
	RequestObject  json.RawMessage `json:"requestObject,omitempty"`
	ResponseObject json.RawMessage `json:"responseObject,omitempty"`
}

// AuditResource names a resource whose writes the audit log records with their bodies.
type AuditResource struct {
	// Group is the API group, "" for the core group.
	Group string
	// Resource is the plural resource name, e.g. "applications".
	Resource string
}

// bodyRules are the audit policy rules recording the writes of resources with their request
// and response bodies (level RequestResponse).
func bodyRules(resources []AuditResource) string {
	var b strings.Builder
	for _, r := range resources {
		fmt.Fprintf(&b, "- level: RequestResponse\n  verbs: [\"create\", \"update\", \"patch\", \"delete\"]\n"+
			"  resources: [{group: %q, resources: [%q]}]\n", r.Group, r.Resource)
	}
	return b.String()
}

// configureAudit makes the API server write the audit log of every write to path (JSON lines),
// those of bodies with their request and response bodies.
func configureAudit(environment *envtest.Environment, path string, bodies []AuditResource) error {
	policy := filepath.Join(filepath.Dir(path), filepath.Base(path)+".policy.yaml")
	if err := os.WriteFile(policy, fmt.Appendf(nil, auditPolicy, bodyRules(bodies)), 0o600); err != nil {
		return fmt.Errorf("write audit policy: %w", err)
	}
	args := environment.ControlPlane.GetAPIServer().Configure()
	args.Set("audit-policy-file", policy)
	args.Set("audit-log-path", path)
	args.Set("audit-log-format", "json")
	args.Set("audit-log-mode", "blocking")
	return nil
}

// ReadAudit returns the events of the audit log at path, in the order the API server wrote them.
func ReadAudit(path string) ([]AuditEvent, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	defer func() { _ = f.Close() }()
	var events []AuditEvent
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 0, 1<<20), 1<<24)
	for scanner.Scan() {
		var e AuditEvent
		if err := json.Unmarshal(scanner.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("audit log %s: %w", path, err)
		}
		events = append(events, e)
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("read audit log %s: %w", path, err)
	}
	return events, nil
}
