package flux_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/flux"
	"github.com/NVIDIA/aicr/ports"
)

func TestEveryMethodIsUnsupported(t *testing.T) {
	t.Parallel()
	e, err := flux.NewEngine()
	require.NoError(t, err)
	ctx, ref, owner := context.Background(), ports.ReleaseRef{ID: "gpu-operator", Namespace: "gpu-operator"}, ports.ReleaseOwner{}
	_, statusErr := e.Status(ctx, ref)
	_, listErr := e.List(ctx)
	_, specsErr := e.Specs(ctx)
	for name, err := range map[string]error{
		"Check":   e.Check(ctx),
		"Apply":   e.Apply(ctx, ports.ReleaseSpec{Ref: ref}),
		"Adopt":   e.Adopt(ctx, ref, "", owner),
		"Status":  statusErr,
		"List":    listErr,
		"Specs":   specsErr,
		"Remove":  e.Remove(ctx, ref, owner),
		"Suspend": e.Suspend(ctx, ref, owner, true),
	} {
		assert.ErrorIsf(t, err, ports.ErrEngineUnsupported, "ENG-5 %s", name)
	}
	assert.Equal(t, "HelmRelease", e.Kind())
}
