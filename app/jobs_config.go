package app

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"regexp"
	"slices"
)

// JobPodSettings are the pod settings of every AICR Job, resolver and validation alike (chart
// values jobs.*): how long a Job may run, what its container requests, where it may be
// scheduled and the Secrets its image is pulled with.
type JobPodSettings struct {
	// ActiveDeadlineSeconds is every Job's activeDeadlineSeconds.
	ActiveDeadlineSeconds int64
	// Resources are the AICR container's requests and limits.
	Resources JobResources
	// NodeSelector is the Job pods' nodeSelector.
	NodeSelector map[string]string
	// Tolerations are the Job pods' tolerations.
	Tolerations []JobToleration
	// ImagePullSecrets name Secrets in the Job namespaces the AICR images are pulled with.
	ImagePullSecrets []string
}

// JobResources are a container's requests and limits: resource name to quantity.
type JobResources struct {
	Requests map[string]Quantity `json:"requests,omitempty"`
	Limits   map[string]Quantity `json:"limits,omitempty"`
}

// Quantity is a resource quantity as the chart writes it: a string (500m, 1Gi) or a number.
type Quantity string

// UnmarshalJSON takes a JSON string or number.
func (q *Quantity) UnmarshalJSON(b []byte) error {
	var n json.Number
	if err := json.Unmarshal(b, &n); err == nil {
		*q = Quantity(n.String())
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a quantity is a string or a number, got %s", b)
	}
	*q = Quantity(s)
	return nil
}

// JobToleration is a Kubernetes toleration as the chart writes it.
type JobToleration struct {
	Key               string `json:"key,omitempty"`
	Operator          string `json:"operator,omitempty"`
	Value             string `json:"value,omitempty"`
	Effect            string `json:"effect,omitempty"`
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty"`
}

// DefaultJobActiveDeadlineSeconds is the default deadline of an AICR Job (one hour).
const DefaultJobActiveDeadlineSeconds = 3600

var (
	// quantity is a Kubernetes resource quantity (resource.Quantity's syntax).
	quantity = regexp.MustCompile(`^[+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?[0-9]+)?$`)
	// labelKey is a qualified label key: an optional DNS subdomain prefix and a name.
	labelKey = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`)
	// labelValue is a label value (empty allowed).
	labelValue = regexp.MustCompile(`^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$`)
	// objectName is a DNS subdomain (a Secret's name).
	objectName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

// bindFlags registers the --jobs-* pod setting flags; the structured ones take JSON, as the
// chart renders them with toJson.
func (s *JobPodSettings) bindFlags(fs *flag.FlagSet) {
	fs.Int64Var(&s.ActiveDeadlineSeconds, "jobs-active-deadline-seconds", DefaultJobActiveDeadlineSeconds,
		"activeDeadlineSeconds of every AICR Job: a Job running longer fails and its stage stalls AICRTimeout")
	fs.Func("jobs-resources", `requests and limits of the AICR container, JSON: {"requests":{"cpu":"100m"},"limits":{"memory":"1Gi"}}`,
		jsonFlag(&s.Resources))
	fs.Func("jobs-node-selector", `nodeSelector of the AICR Job pods, JSON: {"kubernetes.io/os":"linux"}`, jsonFlag(&s.NodeSelector))
	fs.Func("jobs-tolerations", `tolerations of the AICR Job pods, JSON: [{"key":"k","operator":"Exists","effect":"NoSchedule"}]`,
		jsonFlag(&s.Tolerations))
	fs.Func("jobs-image-pull-secrets", "comma-separated Secrets in the Job namespaces the AICR images are pulled with", func(v string) error {
		s.ImagePullSecrets = splitList(v)
		return nil
	})
}

// jsonFlag decodes a flag's value as JSON into dst, refusing unknown fields and trailing data.
func jsonFlag(dst any) func(string) error {
	return func(v string) error {
		dec := json.NewDecoder(bytes.NewReader([]byte(v)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(dst); err != nil {
			return fmt.Errorf("not the expected JSON: %w", err)
		}
		if dec.More() {
			return fmt.Errorf("not the expected JSON: trailing data after the value")
		}
		return nil
	}
}

// validate reports every problem of the pod settings, each naming its flag.
func (s JobPodSettings) validate() []error {
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfig}, args...)...))
	}
	if s.ActiveDeadlineSeconds < 1 {
		add("--jobs-active-deadline-seconds %d must be at least 1 (seconds an AICR Job may run)", s.ActiveDeadlineSeconds)
	}
	for part, m := range map[string]map[string]Quantity{"requests": s.Resources.Requests, "limits": s.Resources.Limits} {
		for name, q := range m {
			if !labelKey.MatchString(name) || !quantity.MatchString(string(q)) {
				add("--jobs-resources %s %q: %q must be a resource name with a quantity such as 500m or 1Gi", part, name, q)
			}
		}
	}
	for k, v := range s.NodeSelector {
		if !labelKey.MatchString(k) || !labelValue.MatchString(v) {
			add("--jobs-node-selector %q=%q is not a valid label key and value", k, v)
		}
	}
	for i, t := range s.Tolerations {
		if msg := t.problem(); msg != "" {
			add("--jobs-tolerations[%d]: %s", i, msg)
		}
	}
	for _, name := range s.ImagePullSecrets {
		if len(name) > 253 || !objectName.MatchString(name) {
			add("--jobs-image-pull-secrets %q is not a valid Secret name", name)
		}
	}
	return errs
}

// problem says what is wrong with t, or "".
func (t JobToleration) problem() string {
	switch {
	case !slices.Contains([]string{"", "Equal", "Exists"}, t.Operator):
		return fmt.Sprintf("operator %q must be Equal or Exists", t.Operator)
	case !slices.Contains([]string{"", "NoSchedule", "PreferNoSchedule", "NoExecute"}, t.Effect):
		return fmt.Sprintf("effect %q must be NoSchedule, PreferNoSchedule or NoExecute", t.Effect)
	case t.Key == "" && t.Operator != "Exists":
		return "an empty key needs operator Exists"
	case t.Key != "" && !labelKey.MatchString(t.Key):
		return fmt.Sprintf("invalid key %q", t.Key)
	case t.Operator == "Exists" && t.Value != "":
		return "operator Exists takes no value"
	case !labelValue.MatchString(t.Value):
		return fmt.Sprintf("invalid value %q", t.Value)
	case t.TolerationSeconds != nil && t.Effect != "NoExecute":
		return "tolerationSeconds needs effect NoExecute"
	}
	return ""
}
