package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// console is where the walkthrough prints; the rollout watch prints from its own goroutine.
var console = &lockedWriter{w: os.Stdout}

// lockedWriter serialises writes of whole lines from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = fmt.Fprintf(l.w, format, args...)
}

var stageNumber int

// stage prints the heading of one stage of the walkthrough.
func stage(format string, args ...any) {
	stageNumber++
	console.printf("\n==> %d. %s\n", stageNumber, fmt.Sprintf(format, args...))
}

// progress prints one line of progress inside a stage.
func progress(format string, args ...any) {
	console.printf("    %s\n", fmt.Sprintf(format, args...))
}

// indent prints a block of another program's output inside a stage.
func indent(out string) {
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		console.printf("    | %s\n", line)
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
