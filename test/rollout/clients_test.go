package rollout_test

import (
	"context"
	"strings"
	"sync/atomic"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// countingClient counts the operator's API writes and can inject a create failure.
type countingClient struct {
	client.Client
	writes   *atomic.Int64
	onCreate func(ctx context.Context, obj client.Object) error
}

func (c countingClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	c.writes.Add(1)
	if c.onCreate != nil {
		if err := c.onCreate(ctx, obj); err != nil {
			return err
		}
	}
	return c.Client.Create(ctx, obj, opts...)
}

func (c countingClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	c.writes.Add(1)
	return c.Client.Update(ctx, obj, opts...)
}

func (c countingClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	c.writes.Add(1)
	return c.Client.Patch(ctx, obj, patch, opts...)
}

func (c countingClient) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	c.writes.Add(1)
	return c.Client.Apply(ctx, obj, opts...)
}

func (c countingClient) Status() client.SubResourceWriter {
	return countingStatus{SubResourceWriter: c.Client.Status(), writes: c.writes}
}

type countingStatus struct {
	client.SubResourceWriter
	writes *atomic.Int64
}

func (s countingStatus) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	s.writes.Add(1)
	return s.SubResourceWriter.Update(ctx, obj, opts...)
}

func (s countingStatus) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	s.writes.Add(1)
	return s.SubResourceWriter.Patch(ctx, obj, patch, opts...)
}

func (s countingStatus) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
	s.writes.Add(1)
	return s.SubResourceWriter.Apply(ctx, obj, opts...)
}

// approve sets the approval as the impersonated approver.
func (h *harness) approve(name string, expires time.Time) {
	h.t.Helper()
	h.patchApproval(name, map[string]any{"approvedBy": approver, "expiresAt": expires.Format(time.RFC3339), "reason": "change window"})
}

// acknowledge records, as the approver, that what release's step waits for is done, keeping
// the acknowledgements given before.
func (h *harness) acknowledge(name, release string) {
	h.t.Helper()
	var acks []any
	if a := h.rollout(name).Spec.Approval; a != nil {
		for _, ack := range a.Acknowledgements {
			acks = append(acks, map[string]any{"release": ack.Release, "acknowledgedBy": ack.AcknowledgedBy,
				"acknowledgedAt": ack.AcknowledgedAt.UTC().Format(time.RFC3339)})
		}
	}
	h.patchApproval(name, map[string]any{"acknowledgements": append(acks, map[string]any{
		"release": release, "acknowledgedBy": approver, "acknowledgedAt": epoch.Format(time.RFC3339),
	})})
}

// acknowledgeDRARestart waits for rollout name to pause before the DRA driver's step, which
// follows an upgrade of the GPU Operator, and acknowledges the kubelet plugin's restart.
func (h *harness) acknowledgeDRARestart(name string) {
	h.t.Helper()
	require.Eventually(h.t, func() bool {
		st := h.rollout(name).Status
		return st.Phase == aicrv1alpha1.PhaseAwaitingAcknowledgement &&
			strings.Contains(st.Message, "kubelet plugin restarted after the upgraded GPU Operator's driver")
	}, waitFor, tick, "rollout %s never paused for the DRA kubelet plugin's restart", name)
	h.acknowledge(name, draDriver)
}

// patchApproval merge-patches spec.approval as the impersonated approver.
func (h *harness) patchApproval(name string, approval map[string]any) {
	h.t.Helper()
	c, err := controlPlane.ClientAs(scheme, approver)
	require.NoError(h.t, err)
	ro := &aicrv1alpha1.RuntimeRollout{ObjectMeta: metav1.ObjectMeta{Name: name}}
	raw, err := jsonMarshal(map[string]any{"spec": map[string]any{"approval": approval}})
	require.NoError(h.t, err)
	require.NoError(h.t, c.Patch(context.Background(), ro, client.RawPatch("application/merge-patch+json", raw)))
}
