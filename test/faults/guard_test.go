package faults_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/NVIDIA/aicr/test/chartrender"
)

// coveredElsewhere are the resources the operator may write whose faults another test of the
// suite injects, and the exempt ones.
var coveredElsewhere = map[string]string{
	"secrets":              "TestCredentialSecretFaults (the per-run registry Secret of a Job, RES-8)",
	"leases":               "TestLeaseLostMidStep (leader election)",
	"events":               "exempt: Events are best effort, nothing reads them back",
	"tokenreviews":         "exempt: a review is a question to the API server, nothing is stored",
	"subjectaccessreviews": "exempt: a review is a question to the API server, nothing is stored",
}

// TestEveryGrantedWriteHasACase renders the chart with each registry auth provider and fails
// when the operator's ServiceAccount may create, update or patch a resource that neither a
// case of writePaths nor another test of the suite covers: a new write path cannot be added
// without its faults tested.
func TestEveryGrantedWriteHasACase(t *testing.T) {
	covered := map[string]bool{}
	for _, p := range append(slices.Clone(writePaths), transitionPaths...) {
		covered[resourceOf(p.resource)] = true
	}
	for _, provider := range []string{"static", "inCluster", "aws"} {
		auth := map[string]any{"provider": provider}
		repository := "oci://registry.example.com/aicr"
		if provider == "aws" {
			auth["awsPullRoleArn"] = "arn:aws:iam::123456789012:role/aicr-pull"
			repository = "oci://123456789012.dkr.ecr.us-east-1.amazonaws.com/aicr"
		}
		objs, err := chartrender.Render(operatorNS, map[string]any{
			"operator":   map[string]any{"awsPodIdentity": provider == "aws"},
			"registry":   map[string]any{"repository": repository, "auth": auth},
			"namespaces": map[string]any{"components": []any{map[string]any{"name": "gpu-operator", "podSecurity": "privileged"}}},
		})
		require.NoError(t, err, provider)
		granted := operatorWrites(t, objs)
		require.Subset(t, granted, []string{"jobs", "configmaps", "secrets", "applications", "runtimerollouts", "clusterruntimes"},
			"the operator's grants (%s)", provider)
		for _, resource := range granted {
			_, elsewhere := coveredElsewhere[resource]
			assert.True(t, covered[resource] || elsewhere,
				"registry.auth.provider %s: the operator may write %s, and no fault case covers it: add it to writePaths or transitionPaths", provider, resource)
		}
	}
}

// resourceOf is the resource of a write path without its subresource.
func resourceOf(r string) string {
	for i := range r {
		if r[i] == '/' {
			return r[:i]
		}
	}
	return r
}

// operatorWrites returns the resources the roles bound to the operator's ServiceAccount allow
// to create, update or patch.
func operatorWrites(t *testing.T, objs []*unstructured.Unstructured) []string {
	t.Helper()
	bound := map[string]bool{}
	for _, o := range objs {
		if o.GetKind() != "RoleBinding" && o.GetKind() != "ClusterRoleBinding" {
			continue
		}
		subjects, _, _ := unstructured.NestedSlice(o.Object, "subjects")
		for _, s := range subjects {
			m, _ := s.(map[string]any)
			if m["kind"] == "ServiceAccount" && m["name"] == "aicr-operator" {
				ref, _, _ := unstructured.NestedString(o.Object, "roleRef", "name")
				kind, _, _ := unstructured.NestedString(o.Object, "roleRef", "kind")
				ns := o.GetNamespace()
				if kind == "ClusterRole" {
					ns = ""
				}
				bound[kind+"/"+ns+"/"+ref] = true
			}
		}
	}
	var out []string
	for _, o := range objs {
		if (o.GetKind() != "Role" && o.GetKind() != "ClusterRole") || !bound[o.GetKind()+"/"+o.GetNamespace()+"/"+o.GetName()] {
			continue
		}
		rules, _, _ := unstructured.NestedSlice(o.Object, "rules")
		for _, r := range rules {
			m, _ := r.(map[string]any)
			verbs, _, _ := unstructured.NestedStringSlice(m, "verbs")
			if !slices.ContainsFunc(verbs, func(v string) bool { return v == "create" || v == "update" || v == "patch" || v == "*" }) {
				continue
			}
			resources, _, _ := unstructured.NestedStringSlice(m, "resources")
			for _, res := range resources {
				if !slices.Contains(out, resourceOf(res)) {
					out = append(out, resourceOf(res))
				}
			}
		}
	}
	return out
}
