package cli

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// decidedAgainRuntime ends the help of every command that changes the ClusterRuntime.
const decidedAgainRuntime = "The change is made as you, on the ClusterRuntime as read; if it changed before the write, it is read\n" +
	"and decided again."

// changeRuntime reads the ClusterRuntime, lets decide refuse it or build a JSON merge patch
// of it (without metadata.resourceVersion, which changeRuntime adds), and patches it
// conditional on what was read; on a conflict it reads and decides again, as changeApproval
// does for rollouts. A runtime being deleted is refused: nothing it asks for would start.
func (s *session) changeRuntime(doing string,
	decide func(*aicrv1alpha1.ClusterRuntime) (map[string]any, error),
) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cr, err := s.clusterRuntime()
		if err != nil {
			return err
		}
		if cr.DeletionTimestamp != nil {
			return fmt.Errorf("clusterruntime %s %w", cr.Name, ErrRuntimeDeleting)
		}
		patch, err := decide(cr)
		if err != nil {
			return err
		}
		meta, _ := patch["metadata"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
			patch["metadata"] = meta
		}
		meta["resourceVersion"] = cr.ResourceVersion
		raw, err := json.Marshal(patch)
		if err != nil {
			return fmt.Errorf("encode patch: %w", err)
		}
		_, err = s.dyn.Resource(runtimeGVR).Patch(s.ctx, cr.Name, types.MergePatchType, raw, metav1.PatchOptions{})
		return s.check(doing+" clusterruntime "+cr.Name, err)
	})
}
