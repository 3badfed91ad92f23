package runtime

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/planstore"
	"github.com/NVIDIA/aicr/ports"
)

// NewAssessmentReader returns the AssessmentSource reading the upgrade-check reports the
// resolver keeps in ConfigMaps labelled role=assessment in namespace: the one whose
// annotations name the transition's plans, whose name matches its content and whose seal
// verifies with the operator's key (planstore.VerifyAssessment). A row's verdict is kept as is; a row
// with a precondition or steps (already narrowed by AICR to the Job's --deployer) has recorded steps
// an approver acknowledges before the apply (RO-9).
func NewAssessmentReader(reader client.Reader, namespace string, seals ports.Sealer) AssessmentSource {
	return func(ctx context.Context, _, from, to string) ([]ports.ComponentAssessment, string, error) {
		var list corev1.ConfigMapList
		if err := reader.List(ctx, &list, client.InNamespace(namespace),
			client.MatchingLabels{aicrv1alpha1.LabelRole: aicrv1alpha1.RoleAssessment}); err != nil {
			return nil, "", fmt.Errorf("list assessments: %w", err)
		}
		for _, cm := range list.Items {
			if cm.Annotations[aicrv1alpha1.AnnotationPlanDigest] != to || cm.Annotations[aicrv1alpha1.AnnotationFromPlanDigest] != from {
				continue
			}
			raw := cm.Data[configdoc.ReportKey]
			// The name binds the report's content to the transition (configdoc.AssessmentConfigMapName);
			// a report under any other name is not one the resolver wrote and is never used.
			if want, err := configdoc.AssessmentConfigMapName(from, to, configdoc.ContentDigest([]byte(raw))); err != nil ||
				cm.Name != want || cm.Labels[aicrv1alpha1.LabelManagedBy] != aicrv1alpha1.ManagedByValue {
				continue
			}
			// A report without the operator's seal (written while the plans binding was missing,
			// or before the seal key) is never used: the resolver writes and seals its own.
			if planstore.VerifyAssessment(seals, &cm) != nil {
				continue
			}
			report, err := configdoc.DecodeReport([]byte(raw))
			if err != nil {
				return nil, "", fmt.Errorf("assessment %s: %w", cm.Name, err)
			}
			return assessments(report), configdoc.ContentDigest([]byte(raw)), nil
		}
		return nil, "", nil
	}
}

func assessments(report *configdoc.Report) []ports.ComponentAssessment {
	out := make([]ports.ComponentAssessment, 0, len(report.Components))
	for _, row := range report.Components {
		out = append(out, ports.ComponentAssessment{Component: row.Component, Verdict: ports.UpgradeVerdict(row.Verdict),
			Reason: row.Reason, RecordedSteps: row.HasRecordedSteps()})
	}
	return out
}
