package plantrust

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/domain"
)

// Failed names the trust check a stored plan fails.
type Failed string

const (
	// NotAPlan refuses a ConfigMap without the plan role label or plan document, or whose
	// document does not decode.
	NotAPlan Failed = "NotAPlan"
	// OtherPlan refuses a plan-digest annotation that is not the digest the plan was read as.
	OtherPlan Failed = "OtherPlan"
	// Schema refuses a schema-version label and payload schemaVersion that differ, or that name a
	// schema this build does not read (PLAN-1, PLAN-6).
	Schema Failed = "Schema"
	// PayloadDigest refuses a payload digest that is not the plan-digest annotation (PLAN-6).
	PayloadDigest Failed = "PayloadDigest"
	// OtherRuntime refuses a plan that records another runtime UID (PLAN-5).
	OtherRuntime Failed = "OtherRuntime"
	// Content refuses releases that with their values hash to another digest than the plan
	// records
	// (PLAN-4, PLAN-6).
	Content Failed = "Content"
	// Unsealed refuses a plan ConfigMap the operator's keyed seal does not vouch for. Only the
	// operator checks it (planstore.VerifyPlan): every other check here is unkeyed, so whoever
	// can write the ConfigMap can pass them, and kubectl aicr, which holds no key, runs only those.
	Unsealed Failed = "Unsealed"
)

// Refusal is a failed trust check: which check failed, and the stall the operator records for
// it (PlanOfAnotherRuntime for OtherRuntime, PlanUnreadable for every other check).
type Refusal struct {
	Failed Failed
	Stall  *domain.Stall
}

// Decode returns the plan document a plan ConfigMap holds, without checking it. A ConfigMap
// without the plan role label or the plan document, or whose document does not decode, is
// refused (NotAPlan).
func Decode(cm *corev1.ConfigMap) (*configdoc.Plan, *Refusal) {
	raw, ok := cm.Data[configdoc.PlanKey]
	if cm.Labels[aicrv1alpha1.LabelRole] != aicrv1alpha1.RolePlan || !ok {
		return nil, refuse(NotAPlan, "ConfigMap %s has no %s=%s label or no %s",
			cm.Name, aicrv1alpha1.LabelRole, aicrv1alpha1.RolePlan, configdoc.PlanKey)
	}
	doc, err := configdoc.DecodePlan([]byte(raw))
	if err != nil {
		return nil, refuse(NotAPlan, "plan ConfigMap %s: %v", cm.Name, err)
	}
	return doc, nil
}

// Header returns what a plan ConfigMap and its decoded document doc claim (PLAN-5, PLAN-6).
func Header(cm *corev1.ConfigMap, doc *configdoc.Plan) domain.StoredPlan {
	return domain.StoredPlan{
		DigestAnnotation: cm.Annotations[aicrv1alpha1.AnnotationPlanDigest],
		SchemaLabel:      cm.Labels[aicrv1alpha1.LabelSchemaVersion],
		PayloadSchema:    doc.SchemaVersion, PayloadDigest: doc.Digest,
		RuntimeUID: doc.RuntimeUID, Source: doc.Source,
	}
}

// Stored returns what a plan ConfigMap claims without decoding its whole document: its labels,
// annotation and payload header. An unparsable payload yields a zero payload schema, which
// Check refuses.
func Stored(cm *corev1.ConfigMap) domain.StoredPlan {
	var payload struct {
		SchemaVersion int               `json:"schemaVersion"`
		Digest        string            `json:"desiredStateDigest"`
		RuntimeUID    string            `json:"runtimeUID"`
		Source        domain.PlanSource `json:"source"`
	}
	_ = json.Unmarshal([]byte(cm.Data[configdoc.PlanKey]), &payload)
	return domain.StoredPlan{
		DigestAnnotation: cm.Annotations[aicrv1alpha1.AnnotationPlanDigest],
		SchemaLabel:      cm.Labels[aicrv1alpha1.LabelSchemaVersion],
		PayloadSchema:    payload.SchemaVersion, PayloadDigest: payload.Digest,
		RuntimeUID: payload.RuntimeUID, Source: payload.Source,
	}
}

// Check applies PLAN-5 and PLAN-6 to what a plan read as the plan of digest for runtimeUID
// claims: its plan-digest annotation is digest (OtherPlan), then the rules of
// domain.CheckPlanReadable: a readable schema equal in label and payload (Schema), a payload
// digest equal to the annotation (PayloadDigest) and runtimeUID recorded (OtherRuntime). A
// reader that does not check the runtime passes the UID the plan records.
func Check(stored domain.StoredPlan, digest, runtimeUID string) *Refusal {
	if stored.DigestAnnotation != digest {
		return refuse(OtherPlan, "plan %s: its plan-digest annotation is %q, not %s",
			digest, stored.DigestAnnotation, digest)
	}
	stall := domain.CheckPlanReadable(stored, runtimeUID)
	if stall == nil {
		return nil
	}
	failed := OtherRuntime // the domain checks in this order: schema, payload digest, runtime
	switch {
	case !domain.PlanSchemaReadable(stored):
		failed = Schema
	case stored.PayloadDigest != stored.DigestAnnotation:
		failed = PayloadDigest
	}
	return &Refusal{Failed: failed, Stall: stall}
}

// CheckDigest recomputes the desiredStateDigest of a plan with its values (PLAN-4) and refuses
// the plan when it is not the digest the plan records (Content): a plan is used only as it was
// resolved, whatever its ConfigMaps' metadata claim (PLAN-6).
func CheckDigest(doc *configdoc.Plan) *Refusal {
	got, err := domain.DesiredStateDigest(doc.Releases)
	if err != nil {
		return refuse(Content, "plan %s: %v", doc.Digest, err)
	}
	if got != doc.Digest {
		return refuse(Content, "plan %s: its releases and values hash to %s, not to the digest it records",
			doc.Digest, got)
	}
	return nil
}

// Unreadable is the PlanUnreadable stall with a formatted message (PLAN-6).
func Unreadable(format string, args ...any) *domain.Stall {
	return domain.PlanUnreadable(fmt.Sprintf(format, args...))
}

// refuse is the Refusal of a failed check the operator stalls PlanUnreadable for.
func refuse(failed Failed, format string, args ...any) *Refusal {
	return &Refusal{Failed: failed, Stall: Unreadable(format, args...)}
}
