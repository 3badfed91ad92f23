package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/NVIDIA/aicr/test/chartrender"
)

// TestTerminationGraceOutlastsTheShutdown: the chart's Deployment gives the Pod longer than the
// operator's graceful shutdown, so the kubelet never kills an operator still finishing writes.
func TestTerminationGraceOutlastsTheShutdown(t *testing.T) {
	t.Parallel()
	objs, err := chartrender.Render("aicr-system", chartrender.RequiredValues())
	require.NoError(t, err)
	for _, o := range objs {
		if o.GetKind() != "Deployment" || o.GetName() != "aicr-operator" {
			continue
		}
		grace, found, err := unstructured.NestedFieldNoCopy(o.Object, "spec", "template", "spec", "terminationGracePeriodSeconds")
		require.NoError(t, err)
		require.True(t, found)
		seconds, ok := grace.(float64)
		require.True(t, ok, "terminationGracePeriodSeconds is a number, got %T", grace)
		require.Greater(t, time.Duration(seconds)*time.Second, gracefulShutdown)
		return
	}
	t.Fatal("the chart renders no aicr-operator Deployment")
}
