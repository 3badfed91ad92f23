package v1alpha1_test

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// TestChangePolicyBounds: the API server refuses a change policy the operator could not judge.
func TestChangePolicyBounds(t *testing.T) {
	t.Parallel()
	window := func(edit func(w *aicrv1alpha1.ChangeWindow)) func(cr *aicrv1alpha1.ClusterRuntime) {
		return func(cr *aicrv1alpha1.ClusterRuntime) {
			w := aicrv1alpha1.ChangeWindow{Days: []aicrv1alpha1.Weekday{"Sat", "Sun"}, Start: "02:00",
				Duration: metav1.Duration{Duration: 4 * time.Hour}, TimeZone: "Europe/Berlin"}
			if edit != nil {
				edit(&w)
			}
			cr.Spec.ChangePolicy.Windows = []aicrv1alpha1.ChangeWindow{w}
		}
	}
	freeze := func(start, end string) func(cr *aicrv1alpha1.ClusterRuntime) {
		return func(cr *aicrv1alpha1.ClusterRuntime) {
			s, _ := time.Parse(time.RFC3339, start)
			e, _ := time.Parse(time.RFC3339, end)
			cr.Spec.ChangePolicy.Freezes = []aicrv1alpha1.ChangeFreeze{{Start: metav1.NewTime(s), End: metav1.NewTime(e),
				Reason: "year-end"}}
		}
	}
	selector := func(s aicrv1alpha1.PodSelector) func(cr *aicrv1alpha1.ClusterRuntime) {
		return func(cr *aicrv1alpha1.ClusterRuntime) {
			cr.Spec.ChangePolicy.ProtectedWorkloads = &aicrv1alpha1.ProtectedWorkloads{PodSelector: s}
		}
	}
	runRuntimeCases(t, []runtimeCase{
		{name: "a weekend window in a time zone is accepted", mutate: window(nil)},
		{name: "a window without days opens every day", mutate: window(func(w *aicrv1alpha1.ChangeWindow) { w.Days = nil })},
		{name: "a start that is not HH:MM is refused", mutate: window(func(w *aicrv1alpha1.ChangeWindow) { w.Start = "24:00" }),
			wantErr: "spec.changePolicy.windows[0].start"},
		{name: "an unknown day is refused", mutate: window(func(w *aicrv1alpha1.ChangeWindow) { w.Days = []aicrv1alpha1.Weekday{"Sunday"} }),
			wantErr: "spec.changePolicy.windows[0].days[0]"},
		{name: "a window shorter than a minute is refused",
			mutate:  window(func(w *aicrv1alpha1.ChangeWindow) { w.Duration = metav1.Duration{Duration: 30 * time.Second} }),
			wantErr: "a change window lasts at least 1m and at most 168h"},
		{name: "a window longer than a week is refused",
			mutate:  window(func(w *aicrv1alpha1.ChangeWindow) { w.Duration = metav1.Duration{Duration: 169 * time.Hour} }),
			wantErr: "a change window lasts at least 1m and at most 168h"},
		{name: "the operator's local time is refused", mutate: window(func(w *aicrv1alpha1.ChangeWindow) { w.TimeZone = "Local" }),
			wantErr: "timeZone names an IANA zone, not the operator's local time"},
		{name: "a time zone that is no zone name is refused",
			mutate:  window(func(w *aicrv1alpha1.ChangeWindow) { w.TimeZone = "../../etc/passwd" }),
			wantErr: "spec.changePolicy.windows[0].timeZone"},
		{name: "a freeze is accepted", mutate: freeze("2026-12-19T00:00:00Z", "2027-01-04T00:00:00Z")},
		{name: "a freeze that ends before it starts is refused", mutate: freeze("2027-01-04T00:00:00Z", "2026-12-19T00:00:00Z"),
			wantErr: "a freeze ends after it starts"},
		{name: "a freeze longer than a year is refused", mutate: freeze("2026-01-01T00:00:00Z", "2027-06-01T00:00:00Z"),
			wantErr: "a freeze lasts at most a year (8760h)"},
		{name: "protected workloads by label are accepted",
			mutate: selector(aicrv1alpha1.PodSelector{MatchLabels: map[string]aicrv1alpha1.LabelValue{"app": "train"}})},
		{name: "protected workloads by expression are accepted", mutate: selector(aicrv1alpha1.PodSelector{
			MatchExpressions: []aicrv1alpha1.PodSelectorRequirement{{Key: "jobset.sigs.k8s.io/jobset-name", Operator: "Exists"}}})},
		{name: "an empty selector, which would protect every Pod, is refused", mutate: selector(aicrv1alpha1.PodSelector{}),
			wantErr: "podSelector selects by matchLabels or matchExpressions"},
		{name: "In without values is refused", mutate: selector(aicrv1alpha1.PodSelector{
			MatchExpressions: []aicrv1alpha1.PodSelectorRequirement{{Key: "app", Operator: "In"}}}),
			wantErr: "In and NotIn take values; Exists and DoesNotExist take none"},
		{name: "Exists with values is refused", mutate: selector(aicrv1alpha1.PodSelector{
			MatchExpressions: []aicrv1alpha1.PodSelectorRequirement{{Key: "app", Operator: "Exists", Values: []aicrv1alpha1.LabelValue{"x"}}}}),
			wantErr: "In and NotIn take values; Exists and DoesNotExist take none"},
		{name: "a component name that is not one is refused", mutate: func(cr *aicrv1alpha1.ClusterRuntime) {
			cr.Spec.ChangePolicy.ExemptComponents = []aicrv1alpha1.ComponentName{"GPU Operator"}
		}, wantErr: "spec.changePolicy.exemptComponents[0]"},
	})
}
