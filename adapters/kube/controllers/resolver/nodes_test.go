package resolver

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/NVIDIA/aicr/domain"
)

// pagedNodes is a client.Reader serving Node metadata as the API server does: the Nodes a
// label selector matches, at most limit at a time, with a continue token for the rest.
type pagedNodes struct {
	nodes []metav1.PartialObjectMetadata
	lists int
}

func (p *pagedNodes) Get(context.Context, client.ObjectKey, client.Object, ...client.GetOption) error {
	return errors.New("discovery only lists Nodes")
}

func (p *pagedNodes) List(_ context.Context, list client.ObjectList, opts ...client.ListOption) error {
	o := (&client.ListOptions{}).ApplyOptions(opts)
	var matched []metav1.PartialObjectMetadata
	for _, n := range p.nodes {
		if o.LabelSelector.Matches(labels.Set(n.Labels)) {
			matched = append(matched, n)
		}
	}
	start := 0
	if o.Continue != "" {
		var err error
		if start, err = strconv.Atoi(o.Continue); err != nil {
			return err
		}
	}
	end := min(start+int(o.Limit), len(matched))
	out := list.(*metav1.PartialObjectMetadataList)
	out.Items = matched[start:end]
	if end < len(matched) {
		out.Continue = strconv.Itoa(end)
	}
	p.lists++
	return nil
}

func nodeMeta(name string, labels map[string]string) metav1.PartialObjectMetadata {
	return metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

// TestNodeGroupsReadEveryPageAndReuseTheirOutcome (RES-2, RES-3): discovery reads
// every page of the Nodes each selector matches, so an accelerated Node on the last page
// counts, and lists again only after the Node watch saw a change or the placement changed.
func TestNodeGroupsReadEveryPageAndReuseTheirOutcome(t *testing.T) {
	ctx := context.Background()
	reader := &pagedNodes{nodes: []metav1.PartialObjectMetadata{nodeMeta("sys-1", map[string]string{"pool": "system"})}}
	for i := range 2*nodePage + 1 {
		product := "NVIDIA-H100-80GB-HBM3"
		if i == 2*nodePage {
			product = "NVIDIA-A100-SXM4-80GB" // the only one on the third page
		}
		reader.nodes = append(reader.nodes, nodeMeta(fmt.Sprintf("gpu-%04d", i), map[string]string{
			"pool": "gpu", "nvidia.com/gpu.product": product, "kubernetes.io/hostname": fmt.Sprintf("gpu-%04d", i)}))
	}
	pl := domain.Placement{System: domain.NodeSelector{"pool": "system"}, Accelerated: domain.NodeSelector{"pool": "gpu"}}
	g := &nodeGroups{}

	stall, err := g.check(ctx, reader, pl)
	require.NoError(t, err)
	require.NotNil(t, stall)
	assert.Equal(t, domain.StallAcceleratedGroupHeterogeneous, stall.Reason(), "the last page's Node is read")
	assert.Equal(t, 1+3, reader.lists, "one page of system Nodes, three of accelerated ones")

	again, err := g.check(ctx, reader, pl)
	require.NoError(t, err)
	assert.Equal(t, stall, again)
	assert.Equal(t, 4, reader.lists, "nothing changed: the outcome is reused")

	reader.nodes = reader.nodes[:len(reader.nodes)-1]
	require.True(t, g.changed().Delete(event.DeleteEvent{Object: &metav1.PartialObjectMetadata{}}))
	stall, err = g.check(ctx, reader, pl)
	require.NoError(t, err)
	assert.Nil(t, stall, "a deleted Node is a change: the groups are listed again")
	assert.Equal(t, 4+3, reader.lists)

	narrower := domain.Placement{System: pl.System, Accelerated: domain.NodeSelector{"pool": "gpu", "zone": "a"}}
	stall, err = g.check(ctx, reader, narrower)
	require.NoError(t, err)
	require.NotNil(t, stall)
	assert.Equal(t, domain.StallNodeGroupEmpty, stall.Reason(), "another placement is discovered anew")

	stall, err = g.check(ctx, reader, domain.Placement{System: pl.System, Accelerated: domain.NodeSelector{"bad key!": "x"}})
	require.NoError(t, err)
	assert.Equal(t, domain.StallInvalidPlacement, stall.Reason(), "an invalid selector is never sent")
	assert.Equal(t, 4+3+2, reader.lists)
}

// TestNodeWatchCountsOnlyChangesThatMatter: an update that leaves a Node's labels as they
// were is not a change; one that changes them is.
func TestNodeWatchCountsOnlyChangesThatMatter(t *testing.T) {
	g := &nodeGroups{}
	p := g.changed()
	old := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "gpu-1", Labels: map[string]string{"digest": "a"}}}
	same := old.DeepCopy()
	same.ResourceVersion = "2"
	relabelled := old.DeepCopy()
	relabelled.Labels["digest"] = "b"
	assert.False(t, p.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: same}))
	assert.Zero(t, g.changes.Load())
	assert.True(t, p.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: relabelled}))
	assert.True(t, p.Create(event.CreateEvent{Object: old}))
	assert.False(t, p.Generic(event.GenericEvent{Object: old}))
	assert.Equal(t, uint64(2), g.changes.Load())
}
