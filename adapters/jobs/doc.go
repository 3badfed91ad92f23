// Package jobs implements ports.JobRunner over batch/v1 Jobs in the Job
// namespace (RES-1, RES-7, RES-8): each AICR command runs in a suspended Job
// with run-scoped inputs, output and credential objects the Job owns. Its
// protocol decisions (snapshot, release keys, output, bundle transport,
// failures, waiting, Pod settings, ordering, hygiene) and why each was chosen
// are recorded in docs/design/aicr-jobs.md.
package jobs
