package cli

import (
	"path/filepath"
	"strings"

	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
)

// unkeyedCheck says what the plugin checked of a plan ConfigMap (planDocument) and what it cannot.
const unkeyedCheck = "form and digests only; the plugin holds no seal key, the operator reads a plan only under its seal"

// writeReproduce prints the plan, what the plugin checked of it, the AICR image, the bundle
// reference and the three commands that re-render the bundle and compare it with the
// operator's (CLI-6).
func writeReproduce(o *Options, name string, plan *configdoc.Plan, recipePath string) error {
	p := &printer{w: o.Out}
	dir := filepath.Dir(recipePath)
	p.printf("Plan:       %s (configmap %s/%s)\n", plan.Digest, o.namespace(), name)
	p.printf("Checked:    %s\n", unkeyedCheck)
	p.printf("Source:     %s by AICR %s for runtime %s, releases: %d\n",
		plan.Source, plan.AICRVersion, plan.RuntimeUID, len(plan.Releases))
	p.printf("AICR image: %s\n", plan.AICRImage)
	p.printf("Bundle:     %s\n", plan.BundleRef)
	p.printf("Recipe:     %s (%s, %s)\n", recipePath, plan.ConfigMapRef.Name, plan.ConfigMapRef.Digest)
	render := []string{
		`docker run --rm --user "$(id -u):$(id -g)" -v ` + mountSource(dir) + ` -w /work`,
		shellQuote(plan.AICRImage),
		"bundle --recipe /work/recipe.json --output /work/aicr-bundle",
	}
	for _, f := range plan.RenderFlags {
		render = append(render, shellQuote(f))
	}
	operatorBundle, aicrBundle := filepath.Join(dir, "operator-bundle"), filepath.Join(dir, "aicr-bundle")
	p.printf("\nTo check that the operator deployed exactly what the AICR CLI renders, run:\n\n")
	p.printf("  %s\n", strings.Join(render, " "))
	p.printf("  oras pull %s --output %s\n", shellQuote(plan.BundleRef), shellQuote(operatorBundle))
	p.printf("  diff -r %s %s\n", shellQuote(aicrBundle), shellQuote(operatorBundle))
	p.printf("\nNo difference means the operator deployed exactly what the AICR CLI renders; verify the bundle yourself.\n")
	return p.result("output")
}

// mountSource is the docker bind mount of dir on /work, quoted for a POSIX shell:
// absolute, through "$PWD" when relative.
func mountSource(dir string) string {
	if filepath.IsAbs(dir) {
		return shellQuote(dir + ":/work")
	}
	return `"$PWD"/` + shellQuote(dir+":/work")
}

// shellQuote quotes s for a POSIX shell when it holds anything but safe characters.
func shellQuote(s string) string {
	safe := s != ""
	for _, c := range s {
		if !strings.ContainsRune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@,+%", c) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}
