package cli

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EngineConfig is what the plugin knows of the operator's deployment engine.
type EngineConfig struct {
	// Namespace is the engine namespace (--engine-namespace).
	Namespace string
	// Project is the AppProject the operator writes its Applications into, from the operator
	// Deployment's --engine-project ("" when unknown).
	Project string
	// Registry is the runtime registry repository the Applications pull charts from, from the
	// operator Deployment's --registry-repository without its oci:// scheme ("" when unknown:
	// the spec the operator writes cannot be rendered, so drift is not judged).
	Registry string
}

// engineConfig returns the engine namespace and, when the caller may read the operator's
// Deployment, the AppProject and registry the operator writes Applications with, from the
// flags the chart passes it. The plan, not the Application, decides what the spec must be; the
// Deployment only says where the operator points it.
func (s *session) engineConfig() EngineConfig {
	ec := EngineConfig{Namespace: s.o.engineNamespace()}
	d, err := s.core.AppsV1().Deployments(s.o.namespace()).Get(s.ctx, OperatorDeployment, metav1.GetOptions{})
	if err != nil {
		return ec
	}
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name != operatorContainer {
			continue
		}
		for _, arg := range append(append([]string{}, c.Command...), c.Args...) {
			if v, ok := strings.CutPrefix(arg, "--engine-project="); ok {
				ec.Project = v
			}
			if v, ok := strings.CutPrefix(arg, "--registry-repository="); ok {
				ec.Registry = strings.TrimPrefix(v, "oci://")
			}
		}
	}
	return ec
}
