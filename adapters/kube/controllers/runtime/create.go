package runtime

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/domain"
)

// ErrNameCollision reports that every attempt to create a rollout collided with another name.
var ErrNameCollision = errors.New("rollout name kept colliding")

const createAttempts = 3

// RolloutCreator creates at most one RuntimeRollout per transition (RO-1). It lists through
// the uncached reader (mgr.GetAPIReader()), keeps the runtime's rollouts, derives the name with
// the domain's naming rule and on AlreadyExists lists again; a create whose response was lost
// is found by the next list, so there is never a second object.
type RolloutCreator struct {
	reader client.Reader
	writer client.Writer
}

// NewRolloutCreator returns a creator listing through the uncached reader and creating through writer.
func NewRolloutCreator(reader client.Reader, writer client.Writer) *RolloutCreator {
	return &RolloutCreator{reader: reader, writer: writer}
}

// Ensure returns the name of the rollout in progress for the runtime of template, creating
// template under the next RO-1 name when none is in progress. created reports a create.
func (c *RolloutCreator) Ensure(ctx context.Context, template *aicrv1alpha1.RuntimeRollout) (name string, created bool, err error) {
	spec := template.Spec
	for range createAttempts {
		listed, highest, err := c.list(ctx, spec.RuntimeUID)
		if err != nil {
			return "", false, err
		}
		name, create := domain.NextRollout(spec.RuntimeUID, spec.FromPlanDigest, spec.ToPlanDigest, listed)
		if !create {
			return name, false, nil
		}
		obj := template.DeepCopy()
		obj.Name = name
		if obj.Labels == nil {
			obj.Labels = map[string]string{}
		}
		obj.Labels[aicrv1alpha1.LabelTransition] = domain.TransitionID(spec.RuntimeUID, spec.FromPlanDigest, spec.ToPlanDigest)
		obj.Labels[aicrv1alpha1.LabelRuntimeUID] = spec.RuntimeUID
		obj.Labels[aicrv1alpha1.LabelManagedBy] = aicrv1alpha1.ManagedByValue
		if obj.Annotations == nil {
			obj.Annotations = map[string]string{}
		}
		obj.Annotations[aicrv1alpha1.AnnotationSequence] = strconv.Itoa(highest + 1)
		err = c.writer.Create(ctx, obj)
		switch {
		case err == nil:
			return name, true, nil
		case apierrors.IsAlreadyExists(err):
			continue
		default:
			return "", false, fmt.Errorf("create rollout %s: %w", name, err)
		}
	}
	return "", false, ErrNameCollision
}

// list returns the rollouts of runtimeUID and the highest sequence among them.
func (c *RolloutCreator) list(ctx context.Context, runtimeUID string) ([]domain.ListedRollout, int, error) {
	var list aicrv1alpha1.RuntimeRolloutList
	if err := c.reader.List(ctx, &list); err != nil {
		return nil, 0, fmt.Errorf("list rollouts: %w", err)
	}
	out := make([]domain.ListedRollout, 0, len(list.Items))
	highest := 0
	for _, ro := range list.Items {
		if ro.Spec.RuntimeUID != runtimeUID {
			continue
		}
		highest = max(highest, shared.RolloutSequence(&ro))
		out = append(out, domain.ListedRollout{
			Name: ro.Name, RuntimeUID: ro.Spec.RuntimeUID, Transition: ro.Labels[aicrv1alpha1.LabelTransition],
			Terminal: ro.Labels[aicrv1alpha1.LabelOutcome] != "",
		})
	}
	return out, highest, nil
}
