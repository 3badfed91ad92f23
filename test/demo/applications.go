package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// printApplications prints the Argo CD Applications the operator wrote: one per Helm release,
// each pulling its chart from the runtime registry pinned by manifest digest, with the sync
// and health the simulated Argo CD reported.
func printApplications(ctx context.Context, c client.Client, namespace string) error {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(schema.GroupVersionKind{Group: "argoproj.io", Version: "v1alpha1", Kind: "ApplicationList"})
	if err := c.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return fmt.Errorf("list Applications: %w", err)
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 3, ' ', 0)
	_, _ = fmt.Fprintln(w, "NAME\tCHART (runtime registry, pinned by digest)\tSYNC\tHEALTH")
	for _, app := range list.Items {
		repo, _, _ := unstructured.NestedString(app.Object, "spec", "source", "repoURL")
		rev, _, _ := unstructured.NestedString(app.Object, "spec", "source", "targetRevision")
		sync, _, _ := unstructured.NestedString(app.Object, "status", "sync", "status")
		health, _, _ := unstructured.NestedString(app.Object, "status", "health", "status")
		_, _ = fmt.Fprintf(w, "%s\t%s@%s\t%s\t%s\n", app.GetName(), repo, shortDigest(rev), sync, health)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	console.printf("    $ kubectl get applications -n %s\n", namespace)
	indent(b.String())
	return nil
}

// shortDigest abbreviates sha256:<64 hex> to its first 12 hex digits for the table.
func shortDigest(d string) string {
	if hex, ok := strings.CutPrefix(d, "sha256:"); ok && len(hex) > 12 {
		return "sha256:" + hex[:12] + "…"
	}
	return d
}

// printWorkloads prints the Deployments Argo CD created from the stand-in charts, with the
// replicas kwok made available: what the real Argo CD did in the cluster.
func printWorkloads(ctx context.Context, c client.Client) error {
	var list appsv1.DeploymentList
	if err := c.List(ctx, &list, client.MatchingLabels{"aicr.nvidia.com/test-chart": "stand-in"}); err != nil {
		return fmt.Errorf("list Deployments: %w", err)
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 3, ' ', 0)
	_, _ = fmt.Fprintln(w, "NAMESPACE\tDEPLOYMENT (stand-in chart)\tAVAILABLE")
	for _, d := range list.Items {
		_, _ = fmt.Fprintf(w, "%s\t%s\t%d/%d\n", d.Namespace, d.Name, d.Status.AvailableReplicas, ptr.Deref(d.Spec.Replicas, 1))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	console.printf("    $ kubectl get deployments -A -l aicr.nvidia.com/test-chart=stand-in\n")
	indent(b.String())
	return nil
}
