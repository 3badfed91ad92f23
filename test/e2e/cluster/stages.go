package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// PodSelector is one expression of a kwok Stage selector: a jq path into the pod, an operator
// (In, NotIn, Exists, DoesNotExist) and values.
type PodSelector struct {
	Key      string
	Operator string
	Values   []string
}

// installStages installs kwok's Stage CRD and creates kwok's stages (the cache's
// kwok-stages.yaml) as Stage objects, for kwok run with --enable-crds=Stage.
func (cl *Cluster) installStages(ctx context.Context) error {
	if _, err := envtest.InstallCRDs(cl.Env.Config, envtest.CRDInstallOptions{
		Paths: []string{filepath.Join(cl.bins, "kwok-stage-crd.yaml")}, ErrorIfPathMissing: true,
	}); err != nil {
		return fmt.Errorf("install kwok's Stage CRD: %w", err)
	}
	stages, err := cl.stages()
	if err != nil {
		return err
	}
	for _, s := range stages {
		if err := cl.Admin.Create(ctx, s); err != nil {
			return fmt.Errorf("create kwok stage %s: %w", s.GetName(), err)
		}
	}
	return nil
}

// stages reads the Stage objects of the cache's kwok-stages.yaml.
func (cl *Cluster) stages() ([]*unstructured.Unstructured, error) {
	raw, err := os.ReadFile(filepath.Join(cl.bins, "kwok-stages.yaml"))
	if err != nil {
		return nil, err
	}
	objs, err := DecodeDocuments(raw)
	if err != nil {
		return nil, fmt.Errorf("kwok-stages.yaml: %w", err)
	}
	return objs, nil
}

// crashLoop is the pod status kwok gives a pod FailPods selects: running, never Ready, its
// containers restarting after exit code 1 (CrashLoopBackOff), as a kubelet reports a container
// that crashes at start. The pod stays counted by its ReplicaSet, so its Deployment stops
// progressing and reports ProgressDeadlineExceeded.
const crashLoop = `{{ $now := Now }}
conditions:
- lastTransitionTime: {{ $now | Quote }}
  status: "True"
  type: Initialized
- lastTransitionTime: {{ $now | Quote }}
  status: "False"
  reason: ContainersNotReady
  type: Ready
- lastTransitionTime: {{ $now | Quote }}
  status: "False"
  reason: ContainersNotReady
  type: ContainersReady
- lastTransitionTime: {{ $now | Quote }}
  status: "True"
  type: PodScheduled
containerStatuses:
{{ range .spec.containers }}
- image: {{ .image | Quote }}
  name: {{ .name | Quote }}
  ready: false
  started: false
  restartCount: 1
  lastState:
    terminated:
      exitCode: 1
      reason: Error
      startedAt: {{ $now | Quote }}
      finishedAt: {{ $now | Quote }}
  state:
    waiting:
      reason: CrashLoopBackOff
      message: back-off restarting failed container {{ .name }}
{{ end }}
hostIP: {{ NodeIPWith .spec.nodeName | Quote }}
podIP: {{ PodIPWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) | Quote }}
phase: Running
startTime: {{ $now | Quote }}
`

// FailPods makes kwok crash-loop every pod that matches all of match before it is Ready, as a
// broken node or a container that crashes at start would, until RestorePods removes the stage
// of that name. Its weight makes kwok prefer it to the stage that makes pods Ready.
func (cl *Cluster) FailPods(ctx context.Context, name string, match ...PodSelector) error {
	exprs := []any{
		map[string]any{"key": ".metadata.deletionTimestamp", "operator": "DoesNotExist"},
		map[string]any{"key": ".status.phase", "operator": "In", "values": []any{"Pending", "Running"}},
		map[string]any{"key": ".status.containerStatuses.[0].state.waiting.reason", "operator": "NotIn", "values": []any{"CrashLoopBackOff"}},
	}
	for _, m := range match {
		values := make([]any, 0, len(m.Values))
		for _, v := range m.Values {
			values = append(values, v)
		}
		exprs = append(exprs, map[string]any{"key": m.Key, "operator": m.Operator, "values": values})
	}
	stage := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kwok.x-k8s.io/v1alpha1", "kind": "Stage", "metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"resourceRef": map[string]any{"apiGroup": "v1", "kind": "Pod"},
			"selector":    map[string]any{"matchExpressions": exprs},
			"weight":      int64(10000),
			"next":        map[string]any{"statusTemplate": crashLoop},
		},
	}}
	return cl.Admin.Create(ctx, stage)
}

// RestorePods removes the stage FailPods created: pods kwok starts from now on run again.
func (cl *Cluster) RestorePods(ctx context.Context, name string) error {
	stage := &unstructured.Unstructured{}
	stage.SetAPIVersion("kwok.x-k8s.io/v1alpha1")
	stage.SetKind("Stage")
	stage.SetName(name)
	return cl.Admin.Delete(ctx, stage)
}
