package argocd

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestSpecWriters: the writers of an Application's spec other than the operator, the latest
// first, each once; a status writer, a writer of metadata only (an annotation named spec
// among it) and the operator's own entries are not among them.
func TestSpecWriters(t *testing.T) {
	at := func(s int) *metav1.Time { return &metav1.Time{Time: time.Unix(int64(s), 0)} }
	fields := metav1.NewFieldsV1
	entries := []metav1.ManagedFieldsEntry{
		{Manager: FieldManager, Time: at(5), FieldsV1: fields(`{"f:spec":{"f:source":{}}}`)},
		{Manager: "kubectl-edit", Time: at(2), FieldsV1: fields(`{"f:spec":{"f:source":{"f:helm":{}}}}`)},
		{Manager: "policy-controller", Time: at(4), FieldsV1: fields(`{"f:spec":{"f:syncPolicy":{}}}`)},
		{Manager: "kubectl-edit", Time: at(3), FieldsV1: fields(`{"f:spec":{"f:project":{}}}`)},
		{Manager: "annotator", Time: at(6), FieldsV1: fields(`{"f:metadata":{"f:annotations":{"f:spec":{}}}}`)},
		{Manager: "argocd-application-controller", Time: at(7), Subresource: "status", FieldsV1: fields(`{"f:status":{}}`)},
		{Manager: "no-fields", Time: at(8)},
	}
	assert.Equal(t, []string{"policy-controller", "kubectl-edit"}, specWriters(entries))
}
