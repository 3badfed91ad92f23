package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nvidia/aicr-operator/test/chartrender"
	"github.com/nvidia/aicr-operator/test/jobexec"
)

// Demo identities and namespaces.
const (
	operatorNamespace = "aicr-system"
	operatorUser      = "system:serviceaccount:" + operatorNamespace + ":aicr-operator"
	approverUser      = "approver-alice"
	aicrVersion       = "1.1.0"
)

// componentNamespaces are the namespaces the fixture recipes deploy into.
var componentNamespaces = []string{
	"kube-system", "cert-manager", "monitoring", "skyhook", "gpu-operator", "kai-scheduler",
	"kubeflow", "nvidia-dra-driver", "nvsentinel",
}

// chartValues are the demo's installation values: an in-cluster style registry, the fixture
// namespaces, one approver and validation off (the runtime disables it too).
func chartValues() map[string]any {
	components := make([]any, 0, len(componentNamespaces))
	for _, ns := range componentNamespaces {
		components = append(components, map[string]any{"name": ns, "podSecurity": "privileged"})
	}
	return map[string]any{
		"aicr":       map[string]any{"version": aicrVersion},
		"registry":   map[string]any{"repository": "oci://registry.demo.local/aicr"},
		"namespaces": map[string]any{"components": components},
		"approvers":  map[string]any{"users": []any{approverUser}},
		"validation": map[string]any{"enabled": false},
	}
}

// installArgoCDCRDs applies Argo CD's CRDs from the repository's test data.
func installArgoCDCRDs(ctx context.Context, c client.Client) error {
	dir := filepath.Join(jobexec.Root(), "test", "testdata", "argocd", "crds")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("read Argo CD CRDs: %w", err)
	}
	var objs []*unstructured.Unstructured
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		obj, err := decodeYAML(raw)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Name(), err)
		}
		objs = append(objs, obj)
	}
	if err := chartrender.Apply(ctx, c, "", objs); err != nil {
		return err
	}
	return waitCRDsEstablished(ctx, c, objs)
}

// installChart renders the chart and applies everything but the operator Deployment (the
// demo runs the operator binary as a local process). It returns the operator's arguments
// exactly as the rendered Deployment passes them.
func installChart(ctx context.Context, c client.Client) ([]string, error) {
	objs, err := chartrender.Render(operatorNamespace, chartValues())
	if err != nil {
		return nil, err
	}
	// The release namespace and Argo CD's namespace exist before the chart is installed.
	for _, ns := range []string{operatorNamespace, "argocd"} {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); client.IgnoreAlreadyExists(err) != nil {
			return nil, err
		}
	}
	var crds []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == "CustomResourceDefinition" {
			crds = append(crds, o)
		}
	}
	if err := chartrender.Apply(ctx, c, operatorNamespace, crds); err != nil {
		return nil, err
	}
	if err := waitCRDsEstablished(ctx, c, crds); err != nil {
		return nil, err
	}
	if err := chartrender.Apply(ctx, c, operatorNamespace, objs, "Deployment", "CustomResourceDefinition"); err != nil {
		return nil, err
	}
	return operatorArgs(objs)
}

func operatorArgs(objs []*unstructured.Unstructured) ([]string, error) {
	for _, o := range objs {
		if o.GetKind() != "Deployment" {
			continue
		}
		var d appsv1.Deployment
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &d); err != nil {
			return nil, err
		}
		var args []string
		for _, a := range d.Spec.Template.Spec.Containers[0].Args {
			a = strings.ReplaceAll(a, "$(POD_NAMESPACE)", operatorNamespace)
			switch {
			case strings.HasPrefix(a, "--metrics-bind-address="), strings.HasPrefix(a, "--health-probe-bind-address="):
				a = a[:strings.Index(a, "=")+1] + "0" // a local process must not take fixed ports
			}
			args = append(args, a)
		}
		return args, nil
	}
	return nil, fmt.Errorf("the chart rendered no operator Deployment")
}

func waitCRDsEstablished(ctx context.Context, c client.Client, crds []*unstructured.Unstructured) error {
	for _, o := range crds {
		err := poll(ctx, func() (bool, error) {
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

// createNodes registers one system and one GPU node, so discovery finds both node groups.
func createNodes(ctx context.Context, c client.Client) error {
	nodes := map[string]map[string]string{
		"system-0": {"example.com/pool": "system", "kubernetes.io/os": "linux"},
		"gpu-0": {"example.com/pool": "gpu", "kubernetes.io/os": "linux", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
			"node.kubernetes.io/instance-type": "p5.48xlarge"},
	}
	for name, labels := range nodes {
		if err := c.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}); client.IgnoreAlreadyExists(err) != nil {
			return fmt.Errorf("create node %s: %w", name, err)
		}
	}
	return nil
}
