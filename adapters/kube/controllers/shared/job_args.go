package shared

import "github.com/NVIDIA/aicr/ports"

// The arguments of the resolver's AICR Jobs (docs/design/aicr-cli.md sections 5, 6 and 9), kept
// here so the AICR contract suite (test/aicrcontract) holds the very arguments the resolver
// passes to what AICR v1 accepts. Every Job writes its artifact to output, a cm:// URI of the
// Job runner, except the bundle Job that pushes to the registry (BundlePushArgs), and logs its
// failure as one JSON line (--log-json).

// SnapshotArgs are the arguments of the snapshot Job: AICR's snapshot in agent mode, writing
// the snapshot (YAML, the default format) to output.
func SnapshotArgs(output string) []string {
	return []string{"--log-json", "snapshot", "-o", output}
}

// RecipeArgs are the arguments of the recipe Job: the runtime's AICRConfig document config and
// the snapshot files, the recipe to inherit from when inherit is not "", the RecipeResult
// (YAML, the default format) written to output.
func RecipeArgs(config, snapshot, inherit, output string) []string {
	args := []string{"--log-json", "recipe", "--config", config, "--snapshot", snapshot}
	if inherit != "" {
		args = append(args, "--inherit-from", inherit)
	}
	return append(args, "-o", output)
}

// UpgradeCheckArgs are the arguments of the upgrade-check Job from the recipe file from to the
// recipe file to: steps narrowed to the argocd-helm deployer, the report as JSON (the default
// is a table, which AICR does not write to a ConfigMap) written to output, and exit 0 whatever
// the verdicts (--fail-on-error=false): the rollout judges them.
func UpgradeCheckArgs(from, to, output string) []string {
	return []string{"--log-json", "upgrade-check", "--from", from, "--to", to,
		"--deployer", "argocd-helm", "--format", "json", "--fail-on-error=false", "-o", output}
}

// BundlePushArgs are the output arguments of the bundle Job named job that pushes to the
// registry: the repository with the tag of the Job's run (BundleTag of ports.JobUIDArg: AICR
// would tag an untagged destination with its own version, so two renders of one AICR release
// would share a tag), the pushed digest published to --image-refs, and --plain-http for a
// registry served over HTTP.
func BundlePushArgs(repository, job string, plainHTTP bool) []string {
	args := []string{"-o", "oci://" + repository + ":" + BundleTag(job, ports.JobUIDArg), "--image-refs", ports.JobImageRefsPath}
	if plainHTTP {
		args = append(args, "--plain-http")
	}
	return args
}

// BundleTag is the tag the run of bundle Job job with UID uid pushes to: the Job's name and its
// UID, so a bundle an earlier run of the same name pushed is never taken for this run's.
func BundleTag(job, uid string) string { return job + "-" + uid }
