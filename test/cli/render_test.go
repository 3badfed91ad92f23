package cli_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/releaseutil"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// Identities and names of the suite.
const (
	operatorNS   = "aicr-system"
	operatorUser = "system:serviceaccount:" + operatorNS + ":aicr-operator"
	approverUser = "approver-alice"
	// groupMember approves through approverGroup, which the chart values list.
	groupMember   = "approver-bob"
	approverGroup = "gpu-platform-approvers"
	editorUser    = "editor-eve"
	strangerUser  = "stranger-sam"
)

// operatorGroups are the groups the API server gives the operator's ServiceAccount.
var operatorGroups = []string{"system:serviceaccounts", "system:serviceaccounts:" + operatorNS}

// chartValues install the chart with approver-alice and the gpu-platform-approvers group as approvers.
func chartValues() map[string]any {
	return map[string]any{
		"registry": map[string]any{"repository": "oci://registry.example.com/aicr"},
		"namespaces": map[string]any{
			"components": []any{map[string]any{"name": "gpu-operator", "podSecurity": "privileged"}},
		},
		"approvers": map[string]any{"users": []any{approverUser}, "groups": []any{approverGroup}},
	}
}

// render renders charts/aicr-operator as helm template does, with the Helm v3 SDK.
func render(values map[string]any) ([]*unstructured.Unstructured, error) {
	_, file, _, _ := runtime.Caller(0)
	chrt, err := loader.Load(filepath.Join(filepath.Dir(file), "..", "..", "charts", "aicr-operator"))
	if err != nil {
		return nil, fmt.Errorf("load chart: %w", err)
	}
	install := action.NewInstall(&action.Configuration{Log: func(string, ...any) {}})
	install.DryRun, install.ClientOnly, install.Replace, install.IncludeCRDs = true, true, true, true
	install.ReleaseName = "aicr-operator"
	install.Namespace = operatorNS
	install.KubeVersion = &chartutil.KubeVersion{Version: "v1.34.4", Major: "1", Minor: "34"}
	rel, err := install.Run(chrt, values)
	if err != nil {
		return nil, fmt.Errorf("render chart: %w", err)
	}
	manifests := releaseutil.SplitManifests(rel.Manifest)
	keys := make([]string, 0, len(manifests))
	for k := range manifests {
		keys = append(keys, k)
	}
	sort.Sort(releaseutil.BySplitManifestsOrder(keys))
	var objs []*unstructured.Unstructured
	for _, k := range keys {
		if strings.TrimSpace(manifests[k]) == "" {
			continue
		}
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(manifests[k]), &obj.Object); err != nil {
			return nil, fmt.Errorf("decode rendered manifest %s: %w", k, err)
		}
		if len(obj.Object) > 0 {
			objs = append(objs, obj)
		}
	}
	return objs, nil
}
