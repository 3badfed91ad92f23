package shared_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
)

// hung is the error a registry client returns when the registry accepted a request and never
// answered: the request's url.Error with a timeout, wrapped by what the operator was doing.
func hung(op, rawURL string) error {
	return fmt.Errorf("push validation evidence: resolve tag t: %w",
		&url.Error{Op: op, URL: rawURL, Err: context.DeadlineExceeded})
}

// TestRetryingConditionNamesAnUnansweredHost: a request left unanswered is HostUnanswered, and
// the message names the host and the request before the error; a refused connection (an
// answer, not a hang) and a url.Error that is no timeout stay TransientError.
func TestRetryingConditionNamesAnUnansweredHost(t *testing.T) {
	t.Parallel()
	err := hung("Head", "https://registry.example:5000/v2/aicr/bundles/cluster/manifests/t")
	c := shared.RetryingCondition(err)
	assert.Equal(t, shared.ReasonHostUnanswered, c.Reason)
	assert.Contains(t, c.Message,
		"waiting for registry.example:5000 to answer HEAD /v2/aicr/bundles/cluster/manifests/t (no answer within the client's timeout)")
	assert.Contains(t, c.Message, err.Error())
	assert.Contains(t, c.Message, shared.MaxRetryBackoff.String())

	for _, other := range []error{
		&url.Error{Op: "Get", URL: "https://registry.example/v2/", Err: errors.New("connect: connection refused")},
		errors.New("deployment engine: timeout"),
	} {
		assert.Equal(t, shared.ReasonTransientError, shared.RetryingCondition(other).Reason, other.Error())
		assert.Empty(t, shared.WaitingForHost(other), other.Error())
	}
}

// TestWaitingForHost names the host and the request of an upstream index fetch left unanswered.
func TestWaitingForHost(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "waiting for charts.example.com to answer GET /nvidia/index.yaml (no answer within the client's timeout)",
		shared.WaitingForHost(hung("Get", "https://charts.example.com/nvidia/index.yaml")))
}
