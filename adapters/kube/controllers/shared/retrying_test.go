package shared_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
)

// TestRetryingConditionNamesWhatIsWaitedOn: an error the API server answered, even wrapped, is
// APIServerError; any other is TransientError; the message carries the error and the backoff bound.
func TestRetryingConditionNamesWhatIsWaitedOn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err    error
		reason string
		what   string
	}{
		{fmt.Errorf("write status of r: %w", apierrors.NewServiceUnavailable("etcd leader changed")),
			shared.ReasonAPIServerError, "waiting for the Kubernetes API server"},
		{fmt.Errorf("read rollout: %w", apierrors.NewTooManyRequests("slow down", 1)),
			shared.ReasonAPIServerError, "waiting for the Kubernetes API server"},
		{apierrors.NewConflict(schema.GroupResource{Resource: "runtimerollouts"}, "r", errors.New("changed")),
			shared.ReasonAPIServerError, "waiting for the Kubernetes API server"},
		{errors.New("deployment engine: dial tcp 10.0.0.1:443: connect: connection refused"),
			shared.ReasonTransientError, "waiting for a dependency"},
	} {
		c := shared.RetryingCondition(tc.err)
		assert.Equal(t, shared.CondRetrying, c.Type)
		assert.Equal(t, metav1.ConditionTrue, c.Status)
		assert.Equal(t, tc.reason, c.Reason, tc.err.Error())
		assert.Contains(t, c.Message, tc.what)
		assert.Contains(t, c.Message, tc.err.Error())
		assert.Contains(t, c.Message, shared.MaxRetryBackoff.String())
	}
}
