package main

// version is the plugin's release, set at build time with
// -ldflags "-X main.version=v0.1.0" (make build sets it for both binaries); kubectl aicr
// version prints it next to the operator's.
var version = "dev"
