package domain

import "github.com/NVIDIA/aicr/ports"

// PlannedDigests returns, by release, the digest of the spec the engine writes for each release
// of plan (DeploymentEngine.SpecDigest): what its engine object must ask for to be the plan's.
func PlannedDigests(engine ports.DeploymentEngine, plan *Plan) (map[ports.ReleaseRef]string, error) {
	out := make(map[ports.ReleaseRef]string, len(plan.Releases))
	for _, r := range plan.Releases {
		d, err := engine.SpecDigest(plan.ReleaseSpec(r.Ref(), ports.ReleaseOwner{}))
		if err != nil {
			return nil, err
		}
		out[r.Ref()] = d
	}
	return out, nil
}

// DriftedReleases returns, in plan order, the releases of plan whose engine object records
// runtimeUID and the plan but asks for another spec than planned (PlannedDigests): edited
// outside the operator, whatever its annotations say. A release without an engine object, or
// whose object another plan or runtime recorded, is not drifted: it is not the plan's yet.
func DriftedReleases(plan *Plan, runtimeUID string, live []ports.ReleaseStatus, planned map[ports.ReleaseRef]string) []ports.ReleaseRef {
	byRef := make(map[ports.ReleaseRef]ports.ReleaseStatus, len(live))
	for _, st := range live {
		byRef[st.Ref] = st
	}
	var out []ports.ReleaseRef
	for _, r := range plan.Releases {
		st, ok := byRef[r.Ref()]
		if ok && st.Owner.RuntimeUID == runtimeUID && st.Owner.PlanDigest == plan.Digest && !st.Matches(planned[r.Ref()]) {
			out = append(out, r.Ref())
		}
	}
	return out
}
