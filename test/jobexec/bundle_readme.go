package jobexec

import (
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// readmeInfo is the part of bundle-info.yaml the README states.
type readmeInfo struct {
	Metadata struct {
		Version string `json:"version"`
	} `json:"metadata"`
	Build struct {
		Recipe struct {
			Version string `json:"version"`
		} `json:"recipe"`
	} `json:"build"`
	Layout struct {
		Releases []struct {
			Name      string `json:"name"`
			Component string `json:"component"`
			Namespace string `json:"namespace"`
			Path      string `json:"path"`
		} `json:"releases"`
	} `json:"layout"`
}

// StampREADME writes the README.md AICR v1's helm bundler puts at a bundle's root from the
// bundle's own bundle-info.yaml: the recipe's version (build.recipe.version) and the bundler's
// (metadata.version), each with a leading v, and one row per component in deployment order
// (its injected -pre, -post and -readiness releases have no row of their own) with the chart
// version and source of its upstream.env, or N/A and local for a local chart. AICR's prose after
// the table (quick start, uninstall, troubleshooting) is not modelled: nothing reads it.
func StampREADME(files map[string][]byte) error {
	var info readmeInfo
	if err := yaml.Unmarshal(files["bundle-info.yaml"], &info); err != nil {
		return fmt.Errorf("README: bundle-info.yaml: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# AI Cluster Runtime Deployment\n\nRecipe Version: %s\nBundler Version: %s\n\n",
		withV(info.Build.Recipe.Version), withV(info.Metadata.Version))
	b.WriteString("Per-component bundle for deploying NVIDIA AI Cluster Runtime components\n" +
		"for GPU-accelerated Kubernetes workloads.\n\n## Configuration\n\n\n\n## Components\n\n" +
		"The following components are included (deployed in order). Each component\n" +
		"lives in a numbered `NNN-<name>/` folder and is installed as a Helm release\n" +
		"via its own `install.sh`:\n\n" +
		"| Component | Version | Namespace | Source |\n|-----------|---------|-----------|--------|\n")
	for _, r := range info.Layout.Releases {
		if r.Name != r.Component {
			continue
		}
		version, source := "N/A", "local"
		if env, ok := files[r.Path+"/upstream.env"]; ok {
			vars := envValues(string(env))
			version, source = vars["VERSION"], vars["CHART"]
			if vars["REPO"] != "" {
				source += " (" + vars["REPO"] + ")"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.Component, version, r.Namespace, source)
	}
	files["README.md"] = []byte(b.String())
	return nil
}

// withV is version with one leading v.
func withV(version string) string {
	return "v" + strings.TrimPrefix(version, "v")
}

// envValues reads the KEY=VALUE lines of an upstream.env, single quotes removed.
func envValues(env string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(env, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
			out[k] = strings.Trim(v, "'")
		}
	}
	return out
}
