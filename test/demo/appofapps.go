package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/prometheus/procfs"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// applicationHealth is the Lua health check Argo CD's documentation gives for an app-of-apps
// whose sync waves wait on child Applications: without it Argo CD (1.8 and later) does not
// assess an Application's health, and every wave starts at once.
const applicationHealth = `hs = {}
hs.status = "Progressing"
hs.message = ""
if obj.status ~= nil and obj.status.health ~= nil then
  hs.status = obj.status.health.status
  if obj.status.health.message ~= nil then
    hs.message = obj.status.health.message
  end
end
return hs
`

const (
	// appOfAppsName is the parent Application of the benchmark and of its chart.
	appOfAppsName = "aicr-e2e-app-of-apps"
	// syncWave is Argo CD's sync-wave annotation.
	syncWave = "argocd.argoproj.io/sync-wave"
)

// installTimes is the initial install the operator made: its Applications as written (for the
// benchmark to install the same plan again), its steps' times and, with the benchmark, what
// the watch measured, the operator's memory after it, and both installs' wall times.
type installTimes struct {
	apps                []unstructured.Unstructured
	steps               []stepTime
	usage               installUsage
	memory              procfs.ProcStatus
	operator, appOfApps time.Duration
}

// span is the time from the first step's write to the last step synced and healthy.
func span(steps []stepTime) time.Duration {
	if len(steps) == 0 {
		return 0
	}
	first, last := steps[0].write, steps[0].done()
	for _, st := range steps[1:] {
		if st.write.Before(first) {
			first = st.write
		}
		if st.done().After(last) {
			last = st.done()
		}
	}
	return last.Sub(first)
}

// benchmarkAppOfApps installs the initial install's plan again the way users do without the
// operator: one app-of-apps whose child Applications are the operator's, carrying
// sync waves in plan order, with Argo CD's Application health check on so each wave waits for
// the one before. The operator is stopped and its Applications deleted with their resources
// first, so both installs start from the same cluster. It prints both wall times and their
// ratio, measured the same way: from the first write (the operator's first Application, the
// parent Application) to the last Application synced and healthy, as the API server stamps them.
func (d *demo) benchmarkAppOfApps(ctx context.Context) error {
	if !d.appOfApps {
		return nil
	}
	stage("Benchmark: the initial install's plan without the operator: one app-of-apps, its Applications in sync waves in plan order")
	d.procs[0].Stop()
	progress("stopped the operator; deleting its Applications with their resources")
	if err := d.deleteApplications(ctx); err != nil {
		return err
	}
	if err := d.argo.SetArgoCDSetting(ctx, "resource.customizations.health.argoproj.io_Application", applicationHealth); err != nil {
		return err
	}
	repoURL, digest, err := d.pushAppOfApps(ctx)
	if err != nil {
		return err
	}
	parent := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": applicationGVK.GroupVersion().String(), "kind": applicationGVK.Kind,
		"metadata": map[string]any{"name": appOfAppsName, "namespace": d.argo.ArgoCDNamespace},
		"spec": map[string]any{
			"project":     "default",
			"source":      map[string]any{"repoURL": repoURL, "path": ".", "targetRevision": digest},
			"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": d.argo.ArgoCDNamespace},
			"syncPolicy":  map[string]any{"automated": map[string]any{"prune": true, "selfHeal": true}},
		},
	}}
	if err = d.admin.Create(ctx, parent); err != nil {
		return fmt.Errorf("create the app-of-apps: %w", err)
	}
	steps, err := d.waitChildren(ctx)
	if err != nil {
		return err
	}
	var last time.Time
	for _, st := range steps {
		if st.done().After(last) {
			last = st.done()
		}
	}
	d.initial.appOfApps, d.initial.operator = last.Sub(parent.GetCreationTimestamp().Time), span(d.initial.steps)
	console.printf("    initial install of %d releases: the operator %s, the app-of-apps with sync waves %s, ratio operator/app-of-apps %.2f\n",
		len(steps), d.initial.operator, d.initial.appOfApps, d.initial.operator.Seconds()/d.initial.appOfApps.Seconds())
	return nil
}

// deleteApplications deletes every Application of the engine namespace with Argo CD's
// resources finalizer and waits until Argo CD removed them and their resources.
func (d *demo) deleteApplications(ctx context.Context) error {
	apps, err := d.applications(ctx)
	if err != nil {
		return err
	}
	patch := []byte(`{"metadata":{"finalizers":["` + resourcesFinalizer + `"]}}`)
	for i := range apps {
		if err = d.admin.Patch(ctx, &apps[i], client.RawPatch(types.MergePatchType, patch)); err != nil {
			return err
		}
		if err = client.IgnoreNotFound(d.admin.Delete(ctx, &apps[i])); err != nil {
			return err
		}
	}
	return poll(ctx, func() (bool, error) {
		left, err := d.applications(ctx)
		return len(left) == 0, err
	})
}

// pushAppOfApps packages the child Applications into a chart and pushes it to the runtime
// registry with helm, returning the repository and the manifest digest to pin.
func (d *demo) pushAppOfApps(ctx context.Context) (string, string, error) {
	dir := filepath.Join(d.workdir, "app-of-apps")
	templates := filepath.Join(dir, appOfAppsName, "templates")
	if err := os.MkdirAll(templates, 0o755); err != nil {
		return "", "", err
	}
	chart := fmt.Appendf(nil, "apiVersion: v2\nname: %s\nversion: 1.0.0\ndescription: test chart, the initial install's plan as an app-of-apps\n", appOfAppsName)
	if err := os.WriteFile(filepath.Join(dir, appOfAppsName, "Chart.yaml"), chart, 0o600); err != nil {
		return "", "", err
	}
	// The template copies the Applications verbatim from files/: Helm does not render a file
	// it reads with .Files.Get, so nothing in their values is taken for a template.
	if err := os.WriteFile(filepath.Join(templates, "applications.yaml"),
		[]byte("{{ range $path, $_ := .Files.Glob \"files/*.yaml\" }}\n---\n{{ $.Files.Get $path }}\n{{ end }}\n"), 0o600); err != nil {
		return "", "", err
	}
	files := filepath.Join(dir, appOfAppsName, "files")
	if err := os.MkdirAll(files, 0o755); err != nil {
		return "", "", err
	}
	for _, app := range d.initial.apps {
		position, err := planPosition(&app)
		if err != nil {
			return "", "", err
		}
		child := map[string]any{
			"apiVersion": app.GetAPIVersion(), "kind": app.GetKind(),
			"metadata": map[string]any{"name": app.GetName(), "namespace": app.GetNamespace(),
				"annotations": map[string]any{syncWave: strconv.Itoa(position)}},
			"spec": app.Object["spec"],
		}
		raw, err := yaml.Marshal(child)
		if err != nil {
			return "", "", err
		}
		if err = os.WriteFile(filepath.Join(files, app.GetName()+".yaml"), raw, 0o600); err != nil {
			return "", "", err
		}
	}
	helm := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, filepath.Join(d.argo.Bins(), "helm"), args...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "HOME="+dir, "SSL_CERT_FILE="+d.reg.CAFile)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("helm %v: %w: %s", args, err, out)
		}
		return string(out), nil
	}
	if _, err := helm("package", appOfAppsName); err != nil {
		return "", "", err
	}
	out, err := helm("push", appOfAppsName+"-1.0.0.tgz", "oci://"+d.reg.Host()+"/aicr/e2e")
	if err != nil {
		return "", "", err
	}
	digest := regexp.MustCompile(`sha256:[0-9a-f]{64}`).FindString(out)
	if digest == "" {
		return "", "", fmt.Errorf("helm push printed no digest: %s", out)
	}
	return "oci://" + d.reg.Host() + "/aicr/e2e/" + appOfAppsName, digest, nil
}

// waitChildren waits until every child Application of the app-of-apps is synced and healthy
// and returns their times in plan order.
func (d *demo) waitChildren(ctx context.Context) ([]stepTime, error) {
	var steps []stepTime
	err := poll(ctx, func() (bool, error) {
		apps, err := d.applications(ctx)
		if err != nil {
			return false, err
		}
		steps = steps[:0]
		for _, app := range apps {
			if app.GetName() == appOfAppsName {
				continue
			}
			sync, _, _ := unstructured.NestedString(app.Object, "status", "sync", "status")
			health, _, _ := unstructured.NestedString(app.Object, "status", "health", "status")
			if sync != "Synced" || health != "Healthy" {
				return false, nil
			}
			position, err := strconv.Atoi(app.GetAnnotations()[syncWave])
			if err != nil {
				return false, fmt.Errorf("sync wave of Application %s: %w", app.GetName(), err)
			}
			steps = append(steps, stepTime{position: position, name: app.GetName(), write: app.GetCreationTimestamp().Time, healthy: healthySince(app)})
		}
		return len(steps) == len(d.initial.apps), nil
	})
	if err != nil {
		return nil, fmt.Errorf("waiting for the app-of-apps' Applications: %w", err)
	}
	slices.SortFunc(steps, func(a, b stepTime) int { return a.position - b.position })
	return steps, nil
}
