//go:build handover

package main

import (
	"fmt"
	"slices"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/kube/manager"
	"github.com/NVIDIA/aicr/adapters/sealer"
	"github.com/NVIDIA/aicr/test/env"
)

// writes is the audit log of a handover cluster: every write the API server answered.
type writes []env.AuditEvent

// readWrites reads the audit log of h.
func (h *handoverCluster) readWrites() writes {
	events, err := env.ReadAudit(h.audit)
	require.NoError(h.t, err)
	return events
}

// ok reports whether the API server accepted the write.
func ok(e env.AuditEvent) bool { return e.ResponseStatus.Code >= 200 && e.ResponseStatus.Code <= 299 }

// isLease reports whether e writes the operator's leader election Lease.
func isLease(e env.AuditEvent) bool {
	return e.ObjectRef.Resource == "leases" && e.ObjectRef.Namespace == operatorNamespace && e.ObjectRef.Name == manager.LeaderElectionID
}

// at is when the API server answered e.
func at(e env.AuditEvent) time.Time {
	t, err := time.Parse(time.RFC3339Nano, e.StageTimestamp)
	if err != nil {
		panic(fmt.Sprintf("audit event time %q: %v", e.StageTimestamp, err))
	}
	return t
}

// firstLeaseWrite is the first accepted Lease write by user answered after since (false when none).
func (w writes) firstLeaseWrite(user string, since time.Time) (time.Time, bool) {
	for _, e := range w {
		if ok(e) && isLease(e) && e.User.Username == user && at(e).After(since) {
			return at(e), true
		}
	}
	return time.Time{}, false
}

// leaseWritesAfter lists the accepted Lease writes by user answered after since.
func (w writes) leaseWritesAfter(user string, since time.Time) []string {
	var found []string
	for _, e := range w {
		if ok(e) && isLease(e) && e.User.Username == user && at(e).After(since) {
			found = append(found, describe(e))
		}
	}
	return found
}

// holder is the user of the last accepted Lease write ("" when none).
func (w writes) holder() string {
	for _, e := range slices.Backward(w) {
		if ok(e) && isLease(e) {
			return e.User.Username
		}
	}
	return ""
}

// firstWrite is the first accepted write other than the Lease by user answered after since.
func (w writes) firstWrite(user string, since time.Time) (time.Time, bool) {
	for _, e := range w {
		if ok(e) && !isLease(e) && e.User.Username == user && at(e).After(since) {
			return at(e), true
		}
	}
	return time.Time{}, false
}

// writesAfter lists the writes of user the API server answered after since: only the accepted
// ones, or every attempt (accepted or refused, for a conflict, say).
func (w writes) writesAfter(user string, since time.Time, attempts bool) []string {
	var found []string
	for _, e := range w {
		if (attempts || ok(e)) && e.User.Username == user && at(e).After(since) {
			found = append(found, describe(e))
		}
	}
	return found
}

// notByHolder are the accepted writes by one of users, other than the Lease, that the API
// server answered while another user's write was the last accepted write of the Lease: a write
// by a replica that did not hold the Lease, or no longer did.
func (w writes) notByHolder(users ...string) []string {
	var found []string
	holder := ""
	for _, e := range w {
		switch {
		case !ok(e) || !slices.Contains(users, e.User.Username) || sealKeyCreate(e):
		case isLease(e):
			holder = e.User.Username
		case e.User.Username != holder:
			found = append(found, fmt.Sprintf("%s while %q held the Lease", describe(e), holder))
		}
	}
	return found
}

// sealKeyCreate reports whether e creates the seal key Secret: every replica creates it on
// its first start unless it exists, before it leads; the API server accepts one create.
func sealKeyCreate(e env.AuditEvent) bool {
	return e.Verb == "create" && e.ObjectRef.Resource == "secrets" && e.ObjectRef.Namespace == operatorNamespace &&
		e.ObjectRef.Name == sealer.SecretName
}

// applicationWrites counts, per Application, the accepted writes by users, and lists every one
// that is not a create.
func (w writes) applicationWrites(users ...string) (map[string]int, []string) {
	counts := map[string]int{}
	var others []string
	for _, e := range w {
		if !ok(e) || e.ObjectRef.Resource != "applications" || !slices.Contains(users, e.User.Username) {
			continue
		}
		counts[e.ObjectRef.Name]++
		if e.Verb != "create" {
			others = append(others, describe(e))
		}
	}
	return counts, others
}

func describe(e env.AuditEvent) string {
	r := e.ObjectRef.Resource
	if e.ObjectRef.Subresource != "" {
		r += "/" + e.ObjectRef.Subresource
	}
	return fmt.Sprintf("%s %s %s %s/%s at %s (%d)", e.User.Username, e.Verb, r, e.ObjectRef.Namespace, e.ObjectRef.Name,
		e.StageTimestamp, e.ResponseStatus.Code)
}
