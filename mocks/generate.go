// Package mocks contains generated gomock doubles for every interface in ports.
// Do not edit the *_mock.go files; run `go generate ./mocks/` (make generate).
package mocks

//go:generate go tool mockgen -typed -destination=deployment_engine_mock.go -package=mocks github.com/NVIDIA/aicr/ports DeploymentEngine
//go:generate go tool mockgen -typed -destination=spec_writers_mock.go -package=mocks github.com/NVIDIA/aicr/ports SpecWriters
//go:generate go tool mockgen -typed -destination=job_runner_mock.go -package=mocks github.com/NVIDIA/aicr/ports JobRunner
//go:generate go tool mockgen -typed -destination=registry_mock.go -package=mocks github.com/NVIDIA/aicr/ports Registry
//go:generate go tool mockgen -typed -destination=clock_mock.go -package=mocks github.com/NVIDIA/aicr/ports Clock
//go:generate go tool mockgen -typed -destination=bundle_reader_mock.go -package=mocks github.com/NVIDIA/aicr/ports BundleReader
//go:generate go tool mockgen -typed -destination=workload_finder_mock.go -package=mocks github.com/NVIDIA/aicr/ports WorkloadFinder
//go:generate go tool mockgen -typed -destination=sealer_mock.go -package=mocks github.com/NVIDIA/aicr/ports Sealer
