package main

import (
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/app"
)

// admissionDigests are the content digests of the chart's admission policies and bindings by
// policy name, checked to name exactly the policies the operator relies on.
type admissionDigests map[string]string

// provideAdmissionDigests refuses to start an operator whose --admission-digests does not
// name exactly shared.ChartAdmissionPolicies: a policy it would trust by name alone, or a
// chart of another release.
func provideAdmissionDigests(cfg app.Config) (admissionDigests, error) {
	if err := shared.CheckAdmissionDigests(shared.ChartAdmissionPolicies, cfg.AdmissionDigests); err != nil {
		return nil, err
	}
	return admissionDigests(cfg.AdmissionDigests), nil
}
