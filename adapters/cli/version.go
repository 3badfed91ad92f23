package cli

import (
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// OperatorDeployment is the name of the operator's Deployment in the operator namespace; the
// chart gives it this name.
const OperatorDeployment = "aicr-operator"

// operatorContainer is the container of OperatorDeployment that runs the operator.
const operatorContainer = "operator"

// versionLabel is the label the chart sets to its appVersion; it names the operator version
// when the image has no tag.
const versionLabel = "app.kubernetes.io/version"

const versionExample = `  # The plugin's and the operator's versions; a different minor version is warned about
  kubectl aicr version

  # The operator installed in another namespace
  kubectl aicr version --operator-namespace aicr-operator`

func newVersionCommand(o *Options) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the plugin's version and the operator's",
		Long: "Prints the plugin's version, then the operator's, read from the image tag of the aicr-operator\n" +
			"Deployment in the operator namespace (this needs get on that Deployment). When the two differ in\n" +
			"major or minor version, a warning goes to stderr: use the plugin released with the operator.",
		Example: versionExample,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// The plugin's version is printed even when the cluster cannot be reached.
			plugin := orDefault(o.Version, "dev")
			if err := o.say("Plugin version: %s", plugin); err != nil {
				return err
			}
			if err := o.preflight(cmd); err != nil {
				return err
			}
			s, cancel, err := o.connect(cmd.Context())
			if err != nil {
				return err
			}
			defer cancel()
			return s.printOperatorVersion(plugin)
		},
	}
}

// printOperatorVersion prints the operator's version and warns when it is skewed from plugin's.
func (s *session) printOperatorVersion(plugin string) error {
	operator, err := s.operatorVersion()
	if err != nil {
		return err
	}
	if err := s.o.say("Operator version: %s", operator); err != nil {
		return err
	}
	if skewed(plugin, operator) {
		s.warn("the plugin (%s) and the operator (%s) differ in minor version; use the plugin released with the operator",
			plugin, operator)
	}
	return nil
}

// operatorVersion reads the operator's version from its Deployment: the tag of the operator
// container's image, else the chart's version label.
func (s *session) operatorVersion() (string, error) {
	ns := s.o.namespace()
	d, err := s.core.AppsV1().Deployments(ns).Get(s.ctx, OperatorDeployment, metav1.GetOptions{})
	if err != nil {
		return "", s.check(fmt.Sprintf("get deployment %s/%s", ns, OperatorDeployment), err)
	}
	for _, c := range d.Spec.Template.Spec.Containers {
		if tag := imageTag(c.Image); c.Name == operatorContainer && tag != "" {
			return tag, nil
		}
	}
	if v := d.Labels[versionLabel]; v != "" {
		return v, nil
	}
	return "", fmt.Errorf("deployment %s/%s: no %s container with a tagged image and no %s label",
		ns, OperatorDeployment, operatorContainer, versionLabel)
}

// imageTag returns the tag of an image reference (repo:tag or repo:tag@digest), "" without one.
func imageTag(image string) string {
	image, _, _ = strings.Cut(image, "@")
	i := strings.LastIndex(image, ":")
	if i < 0 || strings.Contains(image[i+1:], "/") {
		return ""
	}
	return image[i+1:]
}

// skewed reports whether two versions are both semantic versions and differ in major or minor
// version; a development build ("dev") is never skewed.
func skewed(a, b string) bool {
	va, errA := semver.NewVersion(a)
	vb, errB := semver.NewVersion(b)
	if errA != nil || errB != nil {
		return false
	}
	return va.Major() != vb.Major() || va.Minor() != vb.Minor()
}
