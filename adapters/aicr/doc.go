// Package aicr reads AICR v1.x helm bundles (FORMAT.md sections 4 and 5) into
// the engine-neutral ports.Bundle value. The reader works on an fs.FS so that a
// directory on disk, a test fixture and a bundle Job's output go through the
// same code. It is strict: unknown fields, apiVersions and kinds in
// bundle-info.yaml, path escapes, symlinks and namespace mismatches with
// install.sh are rejected. Legacy v0.x bundles (no bundle-info.yaml) are
// detected and reported with their AICR version so the domain can refuse them.
package aicr
