package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	orasremote "oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/test/e2e/cluster"
	"github.com/NVIDIA/aicr/test/env"
)

// helmChartLayer is the media type of a Helm chart's archive in an OCI artifact.
const helmChartLayer = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"

// printLiveDiff renders every Application's chart, pulled from the runtime registry by the
// digest the Application pins, with the Application's release name, namespace and values, with
// `helm template` of the Helm Argo CD runs, and compares each rendered object with the live one Argo CD applied:
// every field the template sets must be in the cluster with the same value (the API server
// adds defaults and status, Argo CD its tracking annotation).
func (d *demo) printLiveDiff(ctx context.Context, namespace string) error {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(applicationGVK.GroupVersion().WithKind("ApplicationList"))
	if err := d.admin.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return fmt.Errorf("list Applications: %w", err)
	}
	var diffs []string
	objects := 0
	for _, app := range list.Items {
		rendered, err := d.renderApplication(ctx, app)
		if err != nil {
			return fmt.Errorf("render Application %s: %w", app.GetName(), err)
		}
		dest, _, _ := unstructured.NestedString(app.Object, "spec", "destination", "namespace")
		for _, obj := range rendered {
			objects++
			diff, err := d.liveDiff(ctx, obj, dest)
			if err != nil {
				return err
			}
			diffs = append(diffs, diff...)
		}
	}
	slices.Sort(diffs)
	summary := "none"
	if len(diffs) > 0 {
		summary = strings.Join(diffs, "; ")
	}
	console.printf("    helm template of every Application's chart and values against the cluster: %d objects of %d releases, differences: %s\n",
		objects, len(list.Items), summary)
	return nil
}

// renderApplication renders the chart app pins with its release name, namespace and values,
// with the Helm binary Argo CD's repo server runs (`helm template`, a values file as Argo CD
// writes one, explicit nulls kept).
func (d *demo) renderApplication(ctx context.Context, app unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	src := func(path ...string) string {
		v, _, _ := unstructured.NestedString(app.Object, append([]string{"spec", "source"}, path...)...)
		return v
	}
	archive, err := d.pullChart(ctx, src("repoURL"), src("targetRevision"))
	if err != nil {
		return nil, err
	}
	values := []byte(src("helm", "values"))
	if obj, ok, _ := unstructured.NestedMap(app.Object, "spec", "source", "helm", "valuesObject"); ok {
		if values, err = yaml.Marshal(obj); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp(d.workdir, "render-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	chartFile, valuesFile := filepath.Join(dir, "chart.tgz"), filepath.Join(dir, "values.yaml")
	if err = os.WriteFile(chartFile, archive, 0o600); err != nil {
		return nil, err
	}
	if err = os.WriteFile(valuesFile, values, 0o600); err != nil {
		return nil, err
	}
	dest, _, _ := unstructured.NestedString(app.Object, "spec", "destination", "namespace")
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, filepath.Join(d.argo.Bins(), "helm"), "template", src("helm", "releaseName"), chartFile,
		"--namespace", dest, "--values", valuesFile, "--kube-version", env.K8sVersion)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("helm template: %w: %s", err, stderr.Bytes())
	}
	objs, err := cluster.DecodeDocuments(out)
	if err != nil {
		return nil, fmt.Errorf("decode helm template's output: %w", err)
	}
	return objs, nil
}

// pullChart pulls the archive of the Helm chart at oci://<repository>@<digest> from the demo's
// registry.
func (d *demo) pullChart(ctx context.Context, repoURL, digest string) ([]byte, error) {
	repo, err := orasremote.NewRepository(strings.TrimPrefix(repoURL, "oci://"))
	if err != nil {
		return nil, err
	}
	repo.Client = &auth.Client{Client: d.reg.Client()}
	_, raw, err := oras.FetchBytes(ctx, repo, digest, oras.DefaultFetchBytesOptions)
	if err != nil {
		return nil, fmt.Errorf("pull %s@%s: %w", repoURL, digest, err)
	}
	var manifest ocispec.Manifest
	if err := json.Unmarshal(raw, &manifest); err != nil {
		return nil, err
	}
	for _, l := range manifest.Layers {
		if l.MediaType == helmChartLayer {
			return content.FetchAll(ctx, repo, l)
		}
	}
	return nil, fmt.Errorf("%s@%s holds no Helm chart layer", repoURL, digest)
}

// liveDiff lists where the live object differs from rendered: a field the template sets that
// the cluster lacks or holds with another value. A namespaced object without a namespace is in
// the release's namespace, as Argo CD applies it.
func (d *demo) liveDiff(ctx context.Context, rendered *unstructured.Unstructured, namespace string) ([]string, error) {
	mapping, err := d.admin.RESTMapper().RESTMapping(rendered.GroupVersionKind().GroupKind(), rendered.GroupVersionKind().Version)
	if err != nil {
		return nil, err
	}
	switch {
	case mapping.Scope.Name() != meta.RESTScopeNameNamespace:
		rendered.SetNamespace("")
	case rendered.GetNamespace() == "":
		rendered.SetNamespace(namespace)
	}
	live := &unstructured.Unstructured{}
	live.SetGroupVersionKind(rendered.GroupVersionKind())
	id := fmt.Sprintf("%s %s/%s", rendered.GetKind(), rendered.GetNamespace(), rendered.GetName())
	if err := d.admin.Get(ctx, client.ObjectKeyFromObject(rendered), live); err != nil {
		return []string{id + ": " + err.Error()}, client.IgnoreNotFound(err)
	}
	var diffs []string
	subset(jsonForm(rendered.Object), jsonForm(live.Object), id+":", &diffs)
	return diffs, nil
}

// jsonForm is v as encoding/json decodes it (numbers float64), so YAML and API numbers compare.
func jsonForm(v any) any {
	raw, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(raw, &out)
	return out
}

// subset appends to diffs every path under path where want is not in got: an object's fields
// each in got's, a list's items each in got's item at the same index (of a list as long).
func subset(want, got any, path string, diffs *[]string) {
	switch w := want.(type) {
	case map[string]any:
		g, _ := got.(map[string]any)
		for k, v := range w {
			subset(v, g[k], path+"."+k, diffs)
		}
	case []any:
		g, _ := got.([]any)
		if len(g) != len(w) {
			*diffs = append(*diffs, fmt.Sprintf("%s rendered %d items, live %d", path, len(w), len(g)))
			return
		}
		for i := range w {
			subset(w[i], g[i], fmt.Sprintf("%s[%d]", path, i), diffs)
		}
	default:
		if !reflect.DeepEqual(want, got) {
			*diffs = append(*diffs, fmt.Sprintf("%s rendered %v, live %v", path, want, got))
		}
	}
}
