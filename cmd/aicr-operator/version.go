package main

// version is the operator's release, set at build time with
// -ldflags "-X main.version=v0.1.0"; the aicr_operator_build_info metric reports it.
var version = "dev"
