package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
)

const describeExample = `  # What an approver decides on: transition, steps, AICR's assessment, recorded steps
  kubectl aicr describe rollout-3f9a1c0d2b7e4a51-1

  # With the operator installed in another namespace, and Argo CD in another than argocd
  kubectl aicr describe rollout-3f9a1c0d2b7e4a51-1 --operator-namespace aicr-operator --engine-namespace gitops

  # The same facts as JSON or YAML
  kubectl aicr describe rollout-3f9a1c0d2b7e4a51-1 -o yaml`

func newDescribeCommand(o *Options) *cobra.Command {
	return newAPICommand(o, apiCommand{
		use:   "describe ROLLOUT [-o json|yaml]",
		short: "Print what an approver decides on about a rollout",
		long: "Prints the rollout, its runtime UID and transition; its phase, outcome, deadline, approval, message and\n" +
			"starting inventory; every step, with, next to AICR's assessment, a values change AICR's verdict does not\n" +
			"cover (overrides or placement that changed the release's values) and, next to the state the operator\n" +
			"recorded, Argo CD's sync and health of the step's Application in --engine-namespace (\"not found\";\n" +
			"\"foreign\" when it records another runtime; \"unknown\" when the plan naming the release's namespace is\n" +
			"not readable), with a sync that runs or failed and Argo CD's message under the steps; why the rollout\n" +
			"needs an approver, by release and rule; AICR's upgrade-check report from the operator namespace\n" +
			"(--operator-namespace), verified against the digest the rollout records (else Assessment: none); under\n" +
			"Recorded steps each transition record's precondition (before:) and steps; each acknowledgement already\n" +
			"given; and the rollout's newest Events. -o json and -o yaml print the same facts as fields.",
		example:  describeExample,
		args:     cobra.ExactArgs(1),
		validate: validateOutput,
		run:      runDescribe,
	})
}

func runDescribe(s *session, args []string) error {
	ro, err := s.rollout(args[0])
	if err != nil {
		return err
	}
	report, err := s.assessment(ro)
	if err != nil {
		return err
	}
	plans, err := s.plans(ro)
	if err != nil {
		return err
	}
	changes := s.valuesChanges(ro, plans)
	engine, err := s.engineViews(ro, plans)
	if err != nil {
		return err
	}
	events, err := s.recentEvents(ro)
	if err != nil {
		return err
	}
	if s.o.flags.output != outputText {
		return writeStructured(s.o.Out, s.o.flags.output, newDescribeDocument(ro, report, changes, engine, events))
	}
	if err := writeDescribe(s.o.Out, ro, report, changes, engine); err != nil {
		return err
	}
	return writeEvents(s.o.Out, events)
}

// assessment returns the upgrade-check report the rollout records, or nil when there is
// none or it does not match the recorded digest (a warning goes to stderr).
func (s *session) assessment(ro *aicrv1alpha1.RuntimeRollout) (*configdoc.Report, error) {
	digest := ro.Spec.AssessmentDigest
	if digest == "" {
		return nil, nil
	}
	name, err := configdoc.AssessmentConfigMapName(ro.Spec.FromPlanDigest, ro.Spec.ToPlanDigest, digest)
	if err != nil {
		s.warn("rollout %s records an invalid assessment digest: %v", ro.Name, err)
		return nil, nil
	}
	cm, err := s.configMap(name)
	if apierrors.IsNotFound(err) {
		s.warn("upgrade-check report %s/%s not found", s.o.namespace(), name)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	raw, ok := cm.Data[configdoc.ReportKey]
	if !ok || cm.Labels[aicrv1alpha1.LabelRole] != aicrv1alpha1.RoleAssessment {
		s.warn("configmap %s/%s is not an upgrade-check report", s.o.namespace(), name)
		return nil, nil
	}
	if got := configdoc.ContentDigest([]byte(raw)); got != digest {
		s.warn("upgrade-check report %s/%s has digest %s, the rollout records %s", s.o.namespace(), name, got, digest)
		return nil, nil
	}
	report, err := configdoc.DecodeReport([]byte(raw))
	if err != nil {
		s.warn("upgrade-check report %s/%s: %v", s.o.namespace(), name, err)
		return nil, nil
	}
	return report, nil
}

// warn prints a warning to stderr; describe goes on without the report.
func (s *session) warn(format string, args ...any) {
	_, _ = fmt.Fprintf(s.o.ErrOut, "warning: "+format+"\n", args...)
}
