package argocd

import (
	"k8s.io/apimachinery/pkg/runtime"

	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
)

// AddToScheme registers the Argo CD Application and AppProject types with s,
// so a controller-runtime client built from s can read and write them.
func AddToScheme(s *runtime.Scheme) error {
	return argov1.AddToScheme(s)
}
