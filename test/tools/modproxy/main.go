// Command modproxy publishes the module of a git checkout into a file-based Go module proxy,
// so that the module can be installed from it exactly as a user installs a release:
//
//	version=$(go run ./test/tools/modproxy --dir /tmp/proxy)
//	GOPROXY=file:///tmp/proxy,$(go env GOPROXY) GONOSUMDB=github.com/NVIDIA/aicr \
//	  go install github.com/NVIDIA/aicr/cmd/kubectl-aicr@${version#*@}
//
// The module holds the files git tracks or would track (the working tree, untracked files
// that are not ignored included), without nested modules, as the go command's own module zip
// does. Its version is a pseudo-version of HEAD's commit time and a digest of that content,
// so a changed tree is a new version and never a stale copy in the module cache. It prints
// module@version.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	dir := flag.String("dir", "", "the proxy directory to write into (GOPROXY=file://DIR)")
	root := flag.String("root", ".", "the git checkout whose go.mod names the module")
	flag.Parse()
	if *dir == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: modproxy --dir DIR [--root CHECKOUT]")
		os.Exit(2)
	}
	published, err := Publish(*root, *dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "modproxy:", err)
		os.Exit(1)
	}
	fmt.Println(published)
}
