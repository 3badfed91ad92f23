package chartrender

import (
	"context"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Install applies the rendered CRDs, waits until the API server serves them, then applies the
// other objects except the kinds in skip.
func Install(ctx context.Context, c client.Client, namespace string, objs []*unstructured.Unstructured, skip ...string) error {
	var crds []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == "CustomResourceDefinition" {
			crds = append(crds, o)
		}
	}
	if err := Apply(ctx, c, namespace, crds); err != nil {
		return err
	}
	if err := WaitEstablished(ctx, c, crds); err != nil {
		return err
	}
	return Apply(ctx, c, namespace, objs, append(skip, "CustomResourceDefinition")...)
}

// WaitEstablished waits until every CRD in crds is Established (one minute at most).
func WaitEstablished(ctx context.Context, c client.Client, crds []*unstructured.Unstructured) error {
	for _, o := range crds {
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			var crd apiextensionsv1.CustomResourceDefinition
			if err := c.Get(ctx, client.ObjectKey{Name: o.GetName()}, &crd); err != nil {
				return false, client.IgnoreNotFound(err)
			}
			for _, cond := range crd.Status.Conditions {
				if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			return fmt.Errorf("CRD %s not established: %w", o.GetName(), err)
		}
	}
	return nil
}

// OperatorArgs returns the operator's arguments exactly as the rendered Deployment passes
// them, with $(POD_NAMESPACE) expanded to namespace and the metrics and probe listeners turned
// off, for an operator process run outside the cluster.
func OperatorArgs(objs []*unstructured.Unstructured, namespace string) ([]string, error) {
	for _, o := range objs {
		if o.GetKind() != "Deployment" {
			continue
		}
		var d appsv1.Deployment
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &d); err != nil {
			return nil, fmt.Errorf("decode the operator Deployment: %w", err)
		}
		var args []string
		for _, a := range d.Spec.Template.Spec.Containers[0].Args {
			a = strings.ReplaceAll(a, "$(POD_NAMESPACE)", namespace)
			if strings.HasPrefix(a, "--metrics-bind-address=") || strings.HasPrefix(a, "--health-probe-bind-address=") {
				a = a[:strings.Index(a, "=")+1] + "0"
			}
			args = append(args, a)
		}
		return args, nil
	}
	return nil, fmt.Errorf("the chart rendered no operator Deployment")
}

// FlagValue returns the value of --name=value in the operator's arguments ("" when absent).
func FlagValue(args []string, name string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
	}
	return ""
}
