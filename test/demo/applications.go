package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/argocd"
	"github.com/NVIDIA/aicr/test/network"
)

// operatorManager is the field manager of the operator binary's writes (its user agent).
const operatorManager = "aicr-operator"

// applicationGVK is Argo CD's Application.
var applicationGVK = schema.GroupVersionKind{Group: "argoproj.io", Version: "v1alpha1", Kind: "Application"}

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
	return printNullsRemoved(ctx, c)
}

// printNullsRemoved checks the values Helm computed for every stand-in release (its values
// ConfigMap): a stand-in chart's default is "stand-in default" exactly where the release's
// values hold an explicit null, so any such value left in the cluster is a null Argo CD or
// Helm did not apply.
func printNullsRemoved(ctx context.Context, c client.Client) error {
	var list corev1.ConfigMapList
	if err := c.List(ctx, &list, client.MatchingLabels{"aicr.nvidia.com/test-chart": "stand-in"}); err != nil {
		return fmt.Errorf("list values ConfigMaps: %w", err)
	}
	var left []string
	for _, cm := range list.Items {
		var values any
		if err := json.Unmarshal([]byte(cm.Data["values.json"]), &values); err != nil {
			return fmt.Errorf("values of %s/%s: %w", cm.Namespace, cm.Name, err)
		}
		for _, path := range standInDefaults(values, "") {
			left = append(left, cm.Namespace+"/"+cm.Name+": "+path)
		}
	}
	if len(left) == 0 {
		left = []string{"none"}
	}
	console.printf("    explicit nulls: chart defaults left in the %d live values ConfigMaps: %s\n", len(list.Items), strings.Join(left, ", "))
	return nil
}

// standInDefaults are the paths of values under path that are still the stand-in default.
func standInDefaults(values any, path string) []string {
	var out []string
	switch v := values.(type) {
	case map[string]any:
		for k, child := range v {
			out = append(out, standInDefaults(child, strings.TrimPrefix(path+"."+k, "."))...)
		}
	case string:
		if v == network.StandInDefault {
			out = append(out, path)
		}
	}
	return out
}

// stepTime is when the operator last wrote one release's Application and when Argo CD reported
// it synced and healthy.
type stepTime struct {
	position       int
	name           string
	write, healthy time.Time
}

// done is when the step was synced and healthy after the operator's write.
func (st stepTime) done() time.Time {
	if st.healthy.After(st.write) {
		return st.healthy
	}
	return st.write
}

// stepTimes reads, per Application in plan order, when the operator last wrote it and when Argo
// CD reported it synced and healthy (the later of its sync operation's finish and its health's
// transition). The API server stamps these times in whole seconds.
func stepTimes(apps []unstructured.Unstructured) ([]stepTime, error) {
	steps := make([]stepTime, 0, len(apps))
	for _, app := range apps {
		position, err := planPosition(&app)
		if err != nil {
			return nil, err
		}
		st := stepTime{position: position, name: app.GetName(), healthy: healthySince(app)}
		for _, mf := range app.GetManagedFields() {
			if mf.Manager == operatorManager && mf.Subresource == "" && mf.Time != nil && mf.Time.After(st.write) {
				st.write = mf.Time.Time
			}
		}
		steps = append(steps, st)
	}
	slices.SortFunc(steps, func(a, b stepTime) int { return a.position - b.position })
	return steps, nil
}

// planPosition is the position of an operator's Application in its plan.
func planPosition(app metav1.Object) (int, error) {
	var spec struct {
		Position int `json:"position"`
	}
	if err := json.Unmarshal([]byte(app.GetAnnotations()[argocd.AnnotationReleaseSpec]), &spec); err != nil {
		return 0, fmt.Errorf("release spec of Application %s: %w", app.GetName(), err)
	}
	return spec.Position, nil
}

// healthySince is when Argo CD last reported the Application synced and healthy: the later of
// its sync operation's finish and its health's last transition.
func healthySince(app unstructured.Unstructured) time.Time {
	var at time.Time
	for _, path := range [][]string{{"status", "operationState", "finishedAt"}, {"status", "health", "lastTransitionTime"}} {
		raw, _, _ := unstructured.NestedString(app.Object, path...)
		if t, err := time.Parse(time.RFC3339, raw); err == nil && t.After(at) {
			at = t
		}
	}
	return at
}

// printStepTimes prints, per Application in plan order, the time from the operator's last
// write of it to Argo CD reporting it Synced and Healthy, and the operator's own share: from
// the step before reported healthy to this write. It returns the steps.
func printStepTimes(ctx context.Context, c client.Client, namespace, what string) ([]stepTime, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(schema.GroupVersionKind{Group: "argoproj.io", Version: "v1alpha1", Kind: "ApplicationList"})
	if err := c.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("list Applications: %w", err)
	}
	steps, err := stepTimes(list.Items)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 3, ' ', 0)
	_, _ = fmt.Fprintln(w, "STEP\tAPPLICATION\tWRITE TO SYNCED+HEALTHY (Argo CD)\tOPERATOR (step before healthy to write)")
	for i, st := range steps {
		argo, operator := st.healthy.Sub(st.write).String(), "-"
		if st.healthy.Before(st.write) {
			argo = "no sync: healthy since before the write"
		}
		if i > 0 {
			operator = st.write.Sub(steps[i-1].done()).String()
		}
		_, _ = fmt.Fprintf(w, "%d\t%s\t%s\t%s\n", st.position+1, st.name, argo, operator)
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	console.printf("    %s, from the Applications' managed fields and Argo CD's status:\n", what)
	indent(b.String())
	return steps, nil
}
