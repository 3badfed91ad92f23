package main

import (
	"fmt"
	"os"
	"strings"
	"time"
)

var stageNumber int

// stage prints the heading of one stage of the walkthrough.
func stage(format string, args ...any) {
	stageNumber++
	fmt.Printf("\n==> %d. %s\n", stageNumber, fmt.Sprintf(format, args...))
}

// progress prints one line of progress inside a stage.
func progress(format string, args ...any) {
	fmt.Printf("    %s\n", fmt.Sprintf(format, args...))
}

// indent prints a block of another program's output inside a stage.
func indent(out string) {
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		fmt.Printf("    | %s\n", line)
	}
}

// pauseFor gives a reader time to follow; CI runs the demo with --pause=0.
func pauseFor(d time.Duration) {
	if d > 0 {
		time.Sleep(d)
	}
}

func fail(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	fmt.Fprintf(os.Stderr, "\n!!  %v\n", err)
	return err
}
