package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// Publish writes the module of the checkout at root into the proxy directory dir, in the
// layout the go command reads from GOPROXY=file://dir ($module/@v/list, .info, .mod, .zip),
// and returns it as module@version.
func Publish(root, dir string) (module.Version, error) {
	goMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return module.Version{}, fmt.Errorf("read the checkout's go.mod: %w", err)
	}
	path := modfile.ModulePath(goMod)
	if path == "" {
		return module.Version{}, errors.New("the checkout's go.mod names no module")
	}
	files, err := checkoutFiles(root)
	if err != nil {
		return module.Version{}, err
	}
	when, err := commitTime(root)
	if err != nil {
		return module.Version{}, err
	}
	digest, err := contentDigest(files)
	if err != nil {
		return module.Version{}, err
	}
	m := module.Version{Path: path, Version: module.PseudoVersion("v0", "", when, digest[:12])}
	escaped, err := module.EscapePath(m.Path)
	if err != nil {
		return module.Version{}, fmt.Errorf("module path %q: %w", m.Path, err)
	}
	base := filepath.Join(dir, filepath.FromSlash(escaped), "@v")
	if err = os.MkdirAll(base, 0o755); err != nil {
		return module.Version{}, fmt.Errorf("create the proxy directory: %w", err)
	}
	var zipped bytes.Buffer
	if err = modzip.Create(&zipped, m, files); err != nil {
		return module.Version{}, err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{m.Version, when})
	if err != nil {
		return module.Version{}, fmt.Errorf("encode the version info: %w", err)
	}
	for ext, content := range map[string][]byte{".info": info, ".mod": goMod, ".zip": zipped.Bytes()} {
		if err = os.WriteFile(filepath.Join(base, m.Version+ext), content, 0o644); err != nil {
			return module.Version{}, fmt.Errorf("write %s%s: %w", m.Version, ext, err)
		}
	}
	if err = os.WriteFile(filepath.Join(base, "list"), []byte(m.Version+"\n"), 0o644); err != nil {
		return module.Version{}, fmt.Errorf("write the version list: %w", err)
	}
	return m, nil
}

// checkoutFile is one regular file of the checkout, in the form the module zip reads.
type checkoutFile struct{ root, path string }

// Path returns the file's slash-separated path relative to the checkout.
func (f checkoutFile) Path() string { return f.path }

// Lstat describes the file.
func (f checkoutFile) Lstat() (fs.FileInfo, error) {
	return os.Lstat(filepath.Join(f.root, filepath.FromSlash(f.path)))
}

// Open opens the file for reading.
func (f checkoutFile) Open() (io.ReadCloser, error) {
	return os.Open(filepath.Join(f.root, filepath.FromSlash(f.path)))
}

// checkoutFiles lists the files git tracks or would track in the checkout, in path order,
// leaving out those deleted from the working tree.
func checkoutFiles(root string) ([]modzip.File, error) {
	out, err := git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	paths := strings.Split(strings.TrimRight(out, "\x00"), "\x00")
	sort.Strings(paths)
	files := make([]modzip.File, 0, len(paths))
	for _, p := range paths {
		if p == "" {
			continue
		}
		if _, statErr := os.Lstat(filepath.Join(root, filepath.FromSlash(p))); errors.Is(statErr, fs.ErrNotExist) {
			continue
		}
		files = append(files, checkoutFile{root: root, path: p})
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("git lists no file in %s", root)
	}
	return files, nil
}

// commitTime is the committer time of the checkout's HEAD, in UTC.
func commitTime(root string) (time.Time, error) {
	out, err := git(root, "log", "-1", "--format=%ct")
	if err != nil {
		return time.Time{}, err
	}
	secs, err := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("HEAD's commit time %q: %w", out, err)
	}
	return time.Unix(secs, 0).UTC(), nil
}

// contentDigest is the hex SHA-256 of every file's path and content.
func contentDigest(files []modzip.File) (string, error) {
	h := sha256.New()
	for _, f := range files {
		rc, err := f.Open()
		if err != nil {
			return "", err
		}
		h.Write([]byte(f.Path() + "\x00")) // a hash.Hash never returns an error
		_, err = io.Copy(h, rc)
		if closeErr := rc.Close(); err == nil {
			err = closeErr
		}
		if err != nil {
			return "", fmt.Errorf("read %s: %w", f.Path(), err)
		}
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// git runs git in root and returns its standard output.
func git(root string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}
