package main

import "runtime/debug"

// version is the plugin's release, set at build time with
// -ldflags "-X main.version=v0.1.0" (make build sets it for both binaries); kubectl aicr
// version prints it next to the operator's.
var version = "dev"

// pluginVersion is version, or, when the build did not set it, the module version the go
// command recorded: `go install github.com/NVIDIA/aicr/cmd/kubectl-aicr@v0.1.0`
// reports v0.1.0.
func pluginVersion() string {
	info, ok := debug.ReadBuildInfo()
	return versionOf(version, info, ok)
}

// versionOf is set unless it is the default "dev" and info names the main module's version.
func versionOf(set string, info *debug.BuildInfo, ok bool) string {
	if set != "dev" || !ok || info.Main.Version == "" || info.Main.Version == "(devel)" {
		return set
	}
	return info.Main.Version
}
