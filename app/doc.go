// Package app holds the operator's use cases and its configuration, over the ports and the
// domain only (no Kubernetes), so they are unit-tested with the gomock doubles of the ports:
// StageRunner runs one AICR Job of a resolution (a kept result first, the Job's own output of
// the pinned AICR version, retries of transient exits, kept results) and AdvanceRollout takes
// a rollout's domain decisions until one must be persisted. The controllers keep what is
// Kubernetes: reading the objects that make a rollout's environment and a resolution's inputs,
// writing status, labels and Events, and requeueing; a port for those reads and writes would
// restate the API client one to one and hide the ordering and preconditions they rely on.
package app
