package chartrender

import (
	"flag"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/NVIDIA/aicr/app"
)

// AdmissionDigests returns the content digests of the admission policies the rendered
// Deployment passes the operator (--admission-digests), parsed as the operator parses them,
// for suites that run the controllers in the test process.
func AdmissionDigests(objs []*unstructured.Unstructured, namespace string) (map[string]string, error) {
	args, err := OperatorArgs(objs, namespace)
	if err != nil {
		return nil, err
	}
	const name = "--admission-digests"
	value := FlagValue(args, name)
	if value == "" {
		return nil, fmt.Errorf("the operator Deployment passes no %s", name)
	}
	var c app.Config
	fs := flag.NewFlagSet("aicr-operator", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.BindFlags(fs)
	if err = fs.Parse([]string{name + "=" + value}); err != nil {
		return nil, err
	}
	return c.AdmissionDigests, nil
}

// EngineProjectDigest returns the digest of the AppProject's spec the rendered Deployment passes
// the operator (--engine-project-digest), for suites that run the controllers in the test process.
func EngineProjectDigest(objs []*unstructured.Unstructured, namespace string) (string, error) {
	args, err := OperatorArgs(objs, namespace)
	if err != nil {
		return "", err
	}
	const name = "--engine-project-digest"
	if value := FlagValue(args, name); value != "" {
		return value, nil
	}
	return "", fmt.Errorf("the operator Deployment passes no %s", name)
}
