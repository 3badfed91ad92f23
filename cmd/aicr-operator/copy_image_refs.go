package main

import (
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"

	"github.com/NVIDIA/aicr/adapters/jobs"
)

// copyImageRefs runs `aicr-operator copy-image-refs <file>` in a bundle Job's image-refs
// container: it copies the --image-refs file AICR published into the container's termination
// log (jobs.CopyImageRefs). It exits 2 on a wrong command line and jobs.CopyFailedExitCode,
// with AICR's failure record on stderr, when the copy fails.
func copyImageRefs(args []string) int {
	if len(args) != 1 {
		fmt.Fprintf(os.Stderr, "usage: aicr-operator %s <--image-refs file>\n", jobs.CopyImageRefsCommand)
		return 2
	}
	if err := jobs.CopyImageRefs(args[0], corev1.TerminationMessagePathDefault); err != nil {
		fmt.Fprintln(os.Stderr, jobs.FailureRecord(err))
		return jobs.CopyFailedExitCode
	}
	return 0
}
