package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/test/chartrender"
	"github.com/NVIDIA/aicr/test/jobexec"
	"github.com/NVIDIA/aicr/test/network"
)

// Demo identities and namespaces.
const (
	operatorNamespace = "aicr-system"
	operatorUser      = "system:serviceaccount:" + operatorNamespace + ":aicr-operator"
	approverUser      = "approver-alice"
	aicrVersion       = "1.1.0"
	// nodeGroupLabel, systemPool and gpuPool are the node labels the fixture renders select.
	nodeGroupLabel = "nodeGroup"
	systemPool     = "system-pool"
	gpuPool        = "gpu-pool"
)

// componentNamespaces are the namespaces the fixture recipes deploy into.
var componentNamespaces = []string{
	"kube-system", "cert-manager", "monitoring", "skyhook", "gpu-operator", "kai-scheduler",
	"kubeflow", "nvidia-dra-driver", "nvsentinel",
}

// chartValues are the demo's installation values: the demo's registry with the static
// credential provider, the fixture namespaces, one approver and deployment validation on; with
// the real Argo CD, the degraded release's short step timeout.
func chartValues(registryHost string, realArgoCD bool) map[string]any {
	values := map[string]any{
		"aicr":       map[string]any{"version": aicrVersion},
		"registry":   map[string]any{"repository": "oci://" + registryHost + "/aicr", "auth": map[string]any{"provider": "static"}},
		"namespaces": map[string]any{"components": chartrender.Components(componentNamespaces...)},
		"approvers":  map[string]any{"users": []any{approverUser}},
		"validation": map[string]any{"enabled": true},
	}
	if realArgoCD {
		values["rollout"] = map[string]any{"componentStepTimeouts": map[string]any{degraded.Name: degradedTimeout.String()}}
	}
	return values
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
	return chartrender.WaitEstablished(ctx, c, objs)
}

// installChart renders the chart and installs everything but the operator Deployment (the
// demo runs the operator binary as a local process). It returns the operator's arguments
// exactly as the rendered Deployment passes them.
func installChart(ctx context.Context, c client.Client, registryHost string, realArgoCD bool) ([]string, error) {
	objs, err := chartrender.Render(operatorNamespace, chartValues(registryHost, realArgoCD))
	if err != nil {
		return nil, err
	}
	// The release namespace and Argo CD's namespace exist before the chart is installed.
	for _, ns := range []string{operatorNamespace, "argocd"} {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); client.IgnoreAlreadyExists(err) != nil {
			return nil, err
		}
	}
	if err := chartrender.Install(ctx, c, operatorNamespace, objs, "Deployment"); err != nil {
		return nil, err
	}
	if err := network.CreateRegistrySecrets(ctx, c, operatorNamespace, registryHost); err != nil {
		return nil, err
	}
	return chartrender.OperatorArgs(objs, operatorNamespace)
}

// createNodes registers one system and one GPU node, so discovery finds both node groups.
func createNodes(ctx context.Context, c client.Client) error {
	nodes := map[string]map[string]string{
		"system-0": {nodeGroupLabel: systemPool, "kubernetes.io/os": "linux"},
		"gpu-0": {nodeGroupLabel: gpuPool, "kubernetes.io/os": "linux", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
			"node.kubernetes.io/instance-type": "p5.48xlarge"},
	}
	for name, labels := range nodes {
		if err := c.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}); client.IgnoreAlreadyExists(err) != nil {
			return fmt.Errorf("create node %s: %w", name, err)
		}
	}
	return nil
}
