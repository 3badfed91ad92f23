// Command imagebuild builds the aicr-operator image without a Docker daemon: a multi-platform
// OCI image index on the empty base (scratch: the static Go binary at /aicr-operator, no shell),
// user 65532:65532, every timestamp fixed to SOURCE_DATE_EPOCH so two builds of one commit give
// one digest. It writes an OCI image layout and prints the index digest (and writes it to
// --digest-file). make release-snapshot runs it on the operator binaries GoReleaser built:
//
//	SOURCE_DATE_EPOCH=$(git log -1 --format=%ct) go run ./test/tools/imagebuild \
//	  --binary linux/amd64=dist/.../aicr-operator --binary linux/arm64=dist/.../aicr-operator \
//	  --version v0.1.0 --revision $(git rev-parse HEAD) --out dist/image
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// binaryFlags collects repeated --binary os/arch=path flags.
type binaryFlags []string

// String returns the flags as given.
func (b *binaryFlags) String() string { return strings.Join(*b, ",") }

// Set adds one os/arch=path flag.
func (b *binaryFlags) Set(v string) error {
	*b = append(*b, v)
	return nil
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "imagebuild:", err)
		os.Exit(1)
	}
}

// run parses args, builds the index and writes the layout.
func run(args []string) error {
	fs := flag.NewFlagSet("imagebuild", flag.ContinueOnError)
	var bins binaryFlags
	fs.Var(&bins, "binary", "os/arch=path of an operator binary (repeat per platform)")
	out := fs.String("out", "dist/image", "directory of the OCI image layout (replaced)")
	source := fs.String("source", "https://github.com/NVIDIA/aicr", "org.opencontainers.image.source")
	version := fs.String("version", "dev", "org.opencontainers.image.version and the layout's ref name")
	revision := fs.String("revision", "", "org.opencontainers.image.revision (the git commit)")
	caBundle := fs.String("ca-bundle", "", "PEM file copied to /etc/ssl/certs/ca-certificates.crt (optional)")
	digestFile := fs.String("digest-file", "", "file the index digest is written to, for the chart's release (optional)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	spec, err := loadSpec(bins, *caBundle)
	if err != nil {
		return err
	}
	spec.source, spec.version, spec.revision = *source, *version, *revision
	idx, err := buildIndex(spec)
	if err != nil {
		return err
	}
	d, err := writeLayout(*out, idx, *version)
	if err != nil {
		return err
	}
	fmt.Printf("operator image index %s written to %s (created %s)\n",
		d.String(), *out, spec.created.Format(time.RFC3339))
	if *digestFile != "" {
		if err := os.WriteFile(*digestFile, []byte(d.String()+"\n"), 0o644); err != nil {
			return fmt.Errorf("write digest: %w", err)
		}
	}
	return nil
}

// loadSpec reads the binaries, the CA bundle and SOURCE_DATE_EPOCH.
func loadSpec(bins []string, caBundle string) (imageSpec, error) {
	var s imageSpec
	epoch, err := strconv.ParseInt(os.Getenv("SOURCE_DATE_EPOCH"), 10, 64)
	if err != nil {
		return s, fmt.Errorf("SOURCE_DATE_EPOCH must be set to the commit time in seconds: %w", err)
	}
	s.created = time.Unix(epoch, 0).UTC()
	if len(bins) == 0 {
		return s, errors.New("no --binary given")
	}
	for _, b := range bins {
		pb, rerr := readBinary(b)
		if rerr != nil {
			return s, rerr
		}
		s.binaries = append(s.binaries, pb)
	}
	if caBundle != "" {
		if s.caBundle, err = os.ReadFile(caBundle); err != nil {
			return s, fmt.Errorf("read CA bundle: %w", err)
		}
	}
	return s, nil
}

// readBinary reads one --binary os/arch=path flag.
func readBinary(flagValue string) (platformBinary, error) {
	plat, path, ok := strings.Cut(flagValue, "=")
	if !ok {
		return platformBinary{}, fmt.Errorf("--binary %q: want os/arch=path", flagValue)
	}
	p, err := v1.ParsePlatform(plat)
	if err != nil {
		return platformBinary{}, fmt.Errorf("--binary %q: %w", flagValue, err)
	}
	body, err := os.ReadFile(path)
	if err != nil {
		return platformBinary{}, fmt.Errorf("read binary: %w", err)
	}
	return platformBinary{platform: *p, binary: body}, nil
}
