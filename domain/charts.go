package domain

import (
	"context"
	"errors"
	"fmt"

	"github.com/nvidia/aicr-operator/ports"
)

// PinCharts resolves every upstream chart of p in the runtime registry
// (mirror reference <mirror>/<chart name>:<version>) and records its manifest
// digest (PLAN-3), then recomputes the plan digest. Credential problems are
// returned as a stall (RegistryCredentialsUnavailable, RegistryCredentialsStale,
// Unauthorized); a missing chart is ChartSourceUnsupported; any other error is
// transient.
func PinCharts(ctx context.Context, reg ports.Registry, mirror string, p *Plan) (*Stall, error) {
	for i, r := range p.Releases {
		if r.Kind != ports.KindUpstream {
			continue
		}
		ref := mirror + "/" + r.Chart.Name + ":" + r.Chart.Version
		d, err := reg.Resolve(ctx, ref)
		if err != nil {
			if s, terr := portStall("resolve "+ref, err); terr == nil {
				return s, nil
			}
			if errors.Is(err, ports.ErrArtifactNotFound) {
				return stallf(StallChartSourceUnsupported, fmt.Sprintf("chart %s is not mirrored in the runtime registry", ref)), nil
			}
			return nil, fmt.Errorf("resolve %s: %w", ref, err)
		}
		p.Releases[i].Chart.ManifestDigest = string(d)
	}
	var err error
	p.Digest, err = DesiredStateDigest(p.Releases)
	return nil, err
}
