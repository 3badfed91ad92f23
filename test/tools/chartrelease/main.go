// Command chartrelease packages the aicr-operator chart for a release: the chart's version and
// appVersion set to the release and the digests of the operator image, the AICR image and the
// helm test image filled in, so the packaged chart installs images pinned by digest. Only
// those lines of values.yaml change; every comment (the values reference) stays.
// make release-snapshot and the release workflow run it:
//
//	go run ./test/tools/chartrelease --version 0.1.0 --operator-digest sha256:... \
//	  --aicr-digest sha256:... --tests-digest sha256:... --out dist
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
)

func main() {
	path, err := run(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "chartrelease:", err)
		os.Exit(1)
	}
	fmt.Println(path)
}

// pinnedDigest is a SHA-256 digest as values.yaml records it; all zeros is the unreleased
// placeholder, never a release's.
var (
	pinnedDigest = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	semver       = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
	placeholder  = "sha256:" + strings.Repeat("0", 64)
)

// run parses args, packages the chart and returns the archive's path.
func run(args []string) (string, error) {
	fs := flag.NewFlagSet("chartrelease", flag.ContinueOnError)
	chartDir := fs.String("chart", "charts/aicr-operator", "the chart's directory")
	version := fs.String("version", "", "the release, without a leading v (the chart's version and appVersion)")
	out := fs.String("out", "dist", "directory the chart archive is written to")
	digests := map[string]*string{
		"operator-digest": fs.String("operator-digest", "", "digest of the operator image index (operator.image.digest)"),
		"aicr-digest":     fs.String("aicr-digest", "", "digest of the AICR image of aicr.version (aicr.image.digest)"),
		"tests-digest":    fs.String("tests-digest", "", "digest of the helm test image (tests.image.digest)"),
	}
	if err := fs.Parse(args); err != nil {
		return "", err
	}
	var errs []error
	if !semver.MatchString(*version) {
		errs = append(errs, fmt.Errorf("--version %q is not a semantic version without a leading v", *version))
	}
	for _, name := range []string{"operator-digest", "aicr-digest", "tests-digest"} {
		if d := *digests[name]; !pinnedDigest.MatchString(d) || d == placeholder {
			errs = append(errs, fmt.Errorf("--%s %q is not a sha256 digest of a released image", name, d))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return "", err
	}
	return release(*chartDir, *out, *version, map[string]string{
		"operator.image.digest": *digests["operator-digest"],
		"aicr.image.digest":     *digests["aicr-digest"],
		"tests.image.digest":    *digests["tests-digest"],
	})
}
