package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/NVIDIA/aicr/adapters/cli"
	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/ports"
)

// argoAPIServer is an API server that serves Argo CD's Application kind: the discovery
// documents a client maps the kind with, and the Applications of apps by path; any other
// Application is forbidden. It records every request that is not a GET.
type argoAPIServer struct {
	apps map[string]any
	mu   sync.Mutex
	// writes are the methods and paths of the requests that were not a GET.
	writes []string
}

func (s *argoAPIServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		s.mu.Lock()
		s.writes = append(s.writes, r.Method+" "+r.URL.Path)
		s.mu.Unlock()
	}
	gv := metav1.GroupVersionForDiscovery{GroupVersion: "argoproj.io/v1alpha1", Version: "v1alpha1"}
	var body any
	switch r.URL.Path {
	case "/api":
		body = metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"}}
	case "/apis":
		body = metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
			Groups: []metav1.APIGroup{{Name: "argoproj.io", Versions: []metav1.GroupVersionForDiscovery{gv}, PreferredVersion: gv}}}
	case "/apis/argoproj.io/v1alpha1":
		body = metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
			GroupVersion: gv.GroupVersion, APIResources: []metav1.APIResource{{Name: "applications",
				SingularName: "application", Namespaced: true, Kind: "Application", Verbs: []string{"get", "list"}}}}
	default:
		app, ok := s.apps[r.URL.Path]
		if !ok {
			status := apierrors.NewForbidden(schema.GroupResource{Group: "argoproj.io", Resource: "applications"}, "x", nil).Status()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			_ = json.NewEncoder(w).Encode(status)
			return
		}
		body = app
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

// TestArgoCDReader: the plugin's engine reads a step's Application by name
// ("<namespace>.<release>") in the engine namespace it is given, maps Argo CD's health and the
// owner the Application records, reports a forbidden read as ports.ErrUnauthorized, and writes
// nothing.
func TestArgoCDReader(t *testing.T) {
	t.Parallel()
	server := &argoAPIServer{apps: map[string]any{
		"/apis/argoproj.io/v1alpha1/namespaces/gitops/applications/gpu-operator.gpu-operator": map[string]any{
			"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
			"metadata": map[string]any{"name": "gpu-operator.gpu-operator", "namespace": "gitops",
				"annotations": map[string]any{aicrv1alpha1.AnnotationRuntimeUID: "uid-1",
					aicrv1alpha1.AnnotationRelease: "gpu-operator"}},
			"spec":   map[string]any{"destination": map[string]any{"namespace": "gpu-operator"}},
			"status": map[string]any{"health": map[string]any{"status": "Degraded"}},
		},
	}}
	srv := httptest.NewServer(server)
	t.Cleanup(srv.Close)
	engine, err := argoCDReader(&rest.Config{Host: srv.URL}, cli.EngineConfig{Namespace: "gitops"})
	require.NoError(t, err)

	st, err := engine.Status(context.Background(), ports.ReleaseRef{ID: "gpu-operator", Namespace: "gpu-operator"})
	require.NoError(t, err)
	assert.Equal(t, ports.HealthDegraded, st.Health)
	assert.Equal(t, "uid-1", st.Owner.RuntimeUID)
	assert.Equal(t, ports.ReleaseRef{ID: "gpu-operator", Namespace: "gpu-operator"}, st.Ref)

	_, err = engine.Status(context.Background(), ports.ReleaseRef{ID: "nvsentinel", Namespace: "nvsentinel"})
	require.ErrorIs(t, err, ports.ErrUnauthorized)
	assert.Empty(t, server.writes)
}
