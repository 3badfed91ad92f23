package jobs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// CopyImageRefs copies the file AICR published as its --image-refs (src) into dst, the
// container's termination log, which the kubelet bind-mounts and records once the container
// exits: dst is written in place, never replaced. src must be a regular file (AICR publishes
// one by a rename, never a link) of 1 to MaxImageRefsBytes bytes; its content is copied
// unparsed, the operator reads it as untrusted. A failure is an error to log as AICR logs
// its own (FailureRecord), so the stage classifies it like an AICR failure.
func CopyImageRefs(src, dst string) error {
	dir, err := os.OpenRoot(filepath.Dir(src))
	if err != nil {
		return fmt.Errorf("open the --image-refs directory: %w", err)
	}
	defer func() { _ = dir.Close() }()
	name := filepath.Base(src)
	fi, err := dir.Lstat(name)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("aicr exited 0 but wrote no --image-refs file %s", src)
	case err != nil:
		return fmt.Errorf("read --image-refs file: %w", err)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("--image-refs %s is not a regular file (%s)", src, fi.Mode().Type())
	case fi.Size() == 0 || fi.Size() > MaxImageRefsBytes:
		return fmt.Errorf("--image-refs %s holds %d bytes, want 1 to %d", src, fi.Size(), MaxImageRefsBytes)
	}
	f, err := dir.Open(name)
	if err != nil {
		return fmt.Errorf("read --image-refs file: %w", err)
	}
	defer func() { _ = f.Close() }()
	refs, err := io.ReadAll(io.LimitReader(f, MaxImageRefsBytes+1))
	if err != nil {
		return fmt.Errorf("read --image-refs file: %w", err)
	}
	if len(refs) > MaxImageRefsBytes {
		return fmt.Errorf("--image-refs %s grew past %d bytes while read", src, MaxImageRefsBytes)
	}
	return writeInPlace(dst, refs)
}

// writeInPlace writes data over the existing file path without replacing it (a bind mount
// stays the mounted file).
func writeInPlace(path string, data []byte) error {
	dir, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("open the termination log's directory: %w", err)
	}
	defer func() { _ = dir.Close() }()
	out, err := dir.OpenFile(filepath.Base(path), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return fmt.Errorf("open the termination log: %w", err)
	}
	if _, err = out.Write(data); err != nil {
		_ = out.Close()
		return fmt.Errorf("write the termination log: %w", err)
	}
	if err = out.Close(); err != nil {
		return fmt.Errorf("write the termination log: %w", err)
	}
	return nil
}

// FailureRecord is the log line of a failed CopyImageRefs, in the shape of AICR's own
// "command failed" record (--log-json) with its INTERNAL code and exit code 8, so Status
// reads it as the failure line of the Job.
func FailureRecord(err error) string {
	line, _ := json.Marshal(map[string]any{
		"level": "ERROR", "msg": "command failed", "exitCode": CopyFailedExitCode,
		"error": "[INTERNAL] hand back the image refs: " + err.Error(),
	})
	return string(line)
}

// CopyFailedExitCode is the exit code of a failed CopyImageRefs: AICR's INTERNAL.
const CopyFailedExitCode = 8
