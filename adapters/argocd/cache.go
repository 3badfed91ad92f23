package argocd

import (
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
)

// CacheByObject limits the manager's cache of Applications to the engine namespace and the
// operator's managed-by label: the operator may list and watch nothing else (CH-4).
func CacheByObject(namespace string) map[client.Object]cache.ByObject {
	return map[client.Object]cache.ByObject{
		&argov1.Application{}: {
			Namespaces: map[string]cache.Config{namespace: {}},
			Label:      managedSelector(),
		},
	}
}

// Uncached lists the Argo CD objects the operator reads by name only, never through a cache:
// the AppProject, which the operator may get but not list or watch (CH-4).
func Uncached() []client.Object {
	return []client.Object{&argov1.AppProject{}}
}
