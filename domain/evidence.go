package domain

import (
	"context"
	"fmt"

	"github.com/NVIDIA/aicr/ports"
)

// evidence builds the evidence of a validated rollout (RO-10): the plan and its rendered
// bundle, the approval it ran under with its acknowledgements, the disruptive steps approvers
// let go, and the revision the engine synced each target release to. Every target release must
// be ready at exactly the spec the plan renders for it: no evidence vouches for anything else.
func (r *Rollout) evidence(ctx context.Context, p Ports, env Environment) (ports.Evidence, error) {
	ev := ports.Evidence{PlanDigest: r.spec.ToPlanDigest, Rollout: r.spec.Name, BundleDigest: env.BundleDigest}
	if a := r.spec.Approval; a.Approved() {
		ap := ports.EvidenceApproval{ApprovedBy: a.ApprovedBy, ExpiresAt: a.ExpiresAt, Reason: a.Reason}
		for _, ack := range a.Acknowledgements {
			if ap.Acknowledgements == nil {
				ap.Acknowledgements = map[string]string{}
			}
			ap.Acknowledgements[ack.Release] = ack.AcknowledgedBy
		}
		ev.Approvals = []ports.EvidenceApproval{ap}
	}
	for _, o := range r.spec.Approval.Overrides {
		ev.DisruptionOverrides = append(ev.DisruptionOverrides, ports.EvidenceOverride{
			Release: o.Release, OverriddenBy: o.OverriddenBy, OverriddenAt: o.OverriddenAt, Reason: o.Reason,
		})
	}
	if env.Target == nil {
		return ev, nil
	}
	for _, rel := range env.Target.Releases {
		st, err := p.Engine.Status(ctx, rel.Ref())
		if err != nil {
			return ports.Evidence{}, fmt.Errorf("status of %s: %w", rel.Ref(), err)
		}
		planned, err := p.Engine.SpecDigest(env.Target.ReleaseSpec(rel.Ref(), ports.ReleaseOwner{}))
		if err != nil {
			return ports.Evidence{}, fmt.Errorf("spec digest of %s: %w", rel.Ref(), err)
		}
		if !st.ReadyAt(planned) {
			return ports.Evidence{}, fmt.Errorf("%s is not synced and healthy at the spec plan %s renders for it "+
				"(its engine object asks for %s, the plan for %s): no evidence is written", rel.Ref(), env.Target.Digest,
				st.SpecDigest, planned)
		}
		ev.Releases = append(ev.Releases, ports.EvidenceRelease{
			ID: rel.ID, Namespace: rel.Namespace, Revision: st.SyncedRevision,
			ChartDigest: ports.Digest(rel.Chart.ManifestDigest),
		})
	}
	return ev, nil
}
