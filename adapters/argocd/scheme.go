package argocd

import (
	argov1 "github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"k8s.io/apimachinery/pkg/runtime"
)

// AddToScheme registers the Argo CD Application and AppProject types with s,
// so a controller-runtime client built from s can read and write them.
func AddToScheme(s *runtime.Scheme) error {
	return argov1.AddToScheme(s)
}
