package ports

import "io/fs"

// BundleReader reads an AICR helm bundle (FORMAT.md sections 4 and 5): a directory tree on
// disk, a test fixture or a bundle job's output alike.
type BundleReader interface {
	// ReadBundle reads the bundle rooted at fsys: a v1.x bundle yields its releases in
	// deployment order; a legacy v0.x bundle is reported as LayoutLegacyV0 with its AICR
	// version and no releases, for the caller to refuse. Any other problem is an error.
	ReadBundle(fsys fs.FS) (Bundle, error)
}
