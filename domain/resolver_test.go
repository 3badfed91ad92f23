package domain_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"

	"github.com/nvidia/aicr-operator/domain"
	"github.com/nvidia/aicr-operator/ports"
)

func TestClassifyAICRExit(t *testing.T) {
	t.Parallel()
	for code, category := range map[int]string{6: "Unavailable", 7: "RateLimited", 9: "Canceled"} {
		got := domain.ClassifyAICRExit(code, "")
		assert.True(t, got.Transient, code)
		assert.Nil(t, got.Stall, code)
		assert.Equal(t, category, got.Category)
	}
	assert.Equal(t, "Success", domain.ClassifyAICRExit(0, "").Category)
	nf := domain.ClassifyAICRExit(2, `{"msg":"command failed","exitCode":2,"error":"[INVALID_REQUEST] bundle: [NOT_FOUND] recipe file not found"}`)
	require.NotNil(t, nf.Stall)
	assert.Equal(t, domain.StallAICRNotFound, nf.Stall.Reason, "the root cause wins")
	assert.Nil(t, domain.CheckAICRVersion("v1.1.0", "1.1.0"))
}

func TestPinCharts(t *testing.T) {
	t.Parallel()
	p, r := newPorts(t)
	plan := targetPlan(t)
	before := plan.Digest
	r.reg.Resolve(gomock.Any(), "oci://mirror/charts/cert-manager:v1.17.2").Return(ports.Digest("sha256:aa"), nil)
	r.reg.Resolve(gomock.Any(), "oci://mirror/charts/gpu-operator:v25.10.1").Return(ports.Digest("sha256:bb"), nil)
	s, err := domain.PinCharts(context.Background(), p.Registry, "oci://mirror/charts", plan)
	require.NoError(t, err)
	assert.Nil(t, s)
	assert.Equal(t, "sha256:bb", plan.Releases[1].Chart.ManifestDigest)
	assert.NotEqual(t, before, plan.Digest, "the manifest digest is part of the plan digest")

	p2, r2 := newPorts(t)
	r2.reg.Resolve(gomock.Any(), gomock.Any()).Return(ports.Digest(""), errBoom)
	_, err = domain.PinCharts(context.Background(), p2.Registry, "oci://mirror/charts", targetPlan(t))
	require.ErrorIs(t, err, errBoom, "an outage is transient")

	p3, r3 := newPorts(t)
	r3.reg.Resolve(gomock.Any(), gomock.Any()).Return(ports.Digest(""), ports.ErrArtifactNotFound)
	s, err = domain.PinCharts(context.Background(), p3.Registry, "oci://mirror/charts", targetPlan(t))
	require.NoError(t, err)
	assert.Equal(t, domain.StallChartSourceUnsupported, s.Reason)
}

func TestAdvance_AdoptTakesOverThenApplies(t *testing.T) {
	t.Parallel()
	p, r := newPorts(t)
	e := env(t)
	e.AdoptionRuntimeUID = "old-runtime"
	s := spec(t, func(s *domain.RolloutSpec) { s.Steps[0].Operation = domain.OpAdopt })
	cm := ref("cert-manager")
	r.clock.Now().Return(t0).AnyTimes()
	old := ports.ReleaseStatus{Ref: cm, Owner: ports.ReleaseOwner{RuntimeUID: "old-runtime", PlanDigest: "sha256:old"}}
	r.engine.Status(gomock.Any(), cm).Return(old, nil)
	r.engine.Adopt(gomock.Any(), cm, "old-runtime", gomock.Any()).Return(nil)
	st := advance(t, p, rollout(t, s, progressing(0)), e).Status

	adopted := old
	adopted.Owner = ports.ReleaseOwner{RuntimeUID: uid, PlanDigest: "sha256:old"}
	r.engine.Status(gomock.Any(), cm).Return(adopted, nil)
	r.engine.Apply(gomock.Any(), gomock.Any()).Return(nil)
	out := advance(t, p, rollout(t, s, st), e)
	assert.False(t, out.Status.StepStartedAt.IsZero())

	p2, r2 := newPorts(t)
	r2.clock.Now().Return(t0).AnyTimes()
	r2.engine.Status(gomock.Any(), cm).Return(old, nil)
	r2.engine.Adopt(gomock.Any(), cm, "old-runtime", gomock.Any()).Return(ports.ErrForeignObject)
	out = advance(t, p2, rollout(t, s, progressing(0)), e)
	require.NotNil(t, out.Stall)
	assert.Equal(t, domain.StallForeignObject, out.Stall.Reason)
}
