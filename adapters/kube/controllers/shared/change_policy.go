package shared

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
)

var weekdays = map[aicrv1alpha1.Weekday]time.Weekday{
	"Sun": time.Sunday, "Mon": time.Monday, "Tue": time.Tuesday, "Wed": time.Wednesday,
	"Thu": time.Thursday, "Fri": time.Friday, "Sat": time.Saturday,
}

// ChangePolicy maps spec.changePolicy onto the domain. A start time or pod selector the
// domain cannot use, which the CRD's rules let through only for a selector's expression keys,
// is an error wrapping domain.ErrChangePolicyInvalid.
func ChangePolicy(p aicrv1alpha1.ChangePolicy) (domain.ChangePolicy, error) {
	out := domain.ChangePolicy{}
	for i, w := range p.Windows {
		start, err := time.Parse("15:04", w.Start)
		if err != nil {
			return domain.ChangePolicy{}, fmt.Errorf("change window %d: start %q is not HH:MM: %w", i+1, w.Start,
				domain.ErrChangePolicyInvalid)
		}
		cw := domain.ChangeWindow{Start: time.Duration(start.Hour())*time.Hour + time.Duration(start.Minute())*time.Minute,
			Duration: w.Duration.Duration, TimeZone: w.TimeZone}
		for _, d := range w.Days {
			cw.Days = append(cw.Days, weekdays[d])
		}
		out.Windows = append(out.Windows, cw)
	}
	for _, f := range p.Freezes {
		out.Freezes = append(out.Freezes, domain.Freeze{Start: f.Start.Time, End: f.End.Time, Reason: f.Reason})
	}
	if pw := p.ProtectedWorkloads; pw != nil {
		selector, err := podSelector(pw.PodSelector)
		if err != nil {
			return domain.ChangePolicy{}, err
		}
		out.ProtectedPods = selector
		for _, ns := range pw.Namespaces {
			out.ProtectedNamespaces = append(out.ProtectedNamespaces, string(ns))
		}
	}
	return out, nil
}

func podSelector(s aicrv1alpha1.PodSelector) (string, error) {
	ls := &metav1.LabelSelector{MatchLabels: map[string]string{}}
	for k, v := range s.MatchLabels {
		ls.MatchLabels[k] = string(v)
	}
	for _, e := range s.MatchExpressions {
		req := metav1.LabelSelectorRequirement{Key: e.Key, Operator: metav1.LabelSelectorOperator(e.Operator)}
		for _, v := range e.Values {
			req.Values = append(req.Values, string(v))
		}
		ls.MatchExpressions = append(ls.MatchExpressions, req)
	}
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return "", fmt.Errorf("protectedWorkloads.podSelector: %v: %w", err, domain.ErrChangePolicyInvalid)
	}
	return sel.String(), nil
}

// DisruptionRules are the rules that mark a transition's disruptive steps: the accelerated
// node group's selector and the change policy's component lists.
func DisruptionRules(cr *aicrv1alpha1.ClusterRuntime) domain.DisruptionRules {
	rules := domain.DisruptionRules{AcceleratedSelector: AcceleratedNodes(cr)}
	for _, c := range cr.Spec.ChangePolicy.DisruptiveComponents {
		rules.Disruptive = append(rules.Disruptive, string(c))
	}
	for _, c := range cr.Spec.ChangePolicy.ExemptComponents {
		rules.Exempt = append(rules.Exempt, string(c))
	}
	return rules
}

// AcceleratedNodes is the accelerated node group's nodeSelector.
func AcceleratedNodes(cr *aicrv1alpha1.ClusterRuntime) map[string]string {
	out := make(map[string]string, len(cr.Spec.Placement.Accelerated.NodeSelector))
	for k, v := range cr.Spec.Placement.Accelerated.NodeSelector {
		out[k] = string(v)
	}
	return out
}
