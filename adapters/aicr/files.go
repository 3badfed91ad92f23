package aicr

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
)

const (
	maxValuesBytes = 4 << 20
	maxSmallBytes  = 1 << 20
	maxChartBytes  = 64 << 20
)

var (
	errSymlink  = errors.New("symlinks are not allowed in a bundle")
	errTooLarge = errors.New("file too large")
	errNotFile  = errors.New("not a regular file")
)

// readLimited reads a regular file of at most limit bytes.
func readLimited(fsys fs.FS, name string, limit int64) (_ []byte, err error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close %s: %w", name, cerr)
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", name, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", name, errNotFile)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w", name, errTooLarge)
	}
	return data, nil
}

// listFolder returns the entries of dir by name and rejects symlinks among them.
func listFolder(fsys fs.FS, dir string) (map[string]fs.DirEntry, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	out := make(map[string]fs.DirEntry, len(entries))
	for _, e := range entries {
		if e.Type()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s: %w", path.Join(dir, e.Name()), errSymlink)
		}
		out[e.Name()] = e
	}
	return out, nil
}

// treeDigest hashes a local chart's payload: every file of dir except the
// excluded ones, in the order of compute_releases.py (directories by path,
// files by name), as sha256 over "rel\0content\0" records. Symlinks anywhere
// in the tree are rejected.
func treeDigest(fsys fs.FS, dir string, exclude map[string]bool) (string, error) {
	type file struct{ dir, name string }
	var files []file
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s: %w", p, errSymlink)
		}
		if d.IsDir() {
			return nil
		}
		rel := strings.TrimPrefix(p, dir+"/")
		if exclude[rel] {
			return nil
		}
		files = append(files, file{dir: path.Dir(rel), name: path.Base(rel)})
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("walk %s: %w", dir, err)
	}
	sort.Slice(files, func(i, j int) bool {
		di, dj := dirKey(files[i].dir), dirKey(files[j].dir)
		if di != dj {
			return di < dj
		}
		return files[i].name < files[j].name
	})
	h := sha256.New()
	for _, f := range files {
		rel := path.Join(f.dir, f.name)
		data, err := readLimited(fsys, path.Join(dir, rel), maxChartBytes)
		if err != nil {
			return "", err
		}
		h.Write([]byte(rel))
		h.Write([]byte{0})
		h.Write(data)
		h.Write([]byte{0})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// dirKey sorts the folder itself before its sub-directories, as Python's
// sorted(os.walk(folder)) does.
func dirKey(d string) string {
	if d == "." {
		return ""
	}
	return "/" + d
}

// installNamespace returns the --namespace (or -n) token of install.sh and
// whether it passes --create-namespace.
func installNamespace(script string) (string, bool) {
	toks := strings.Fields(script)
	ns, create := "", false
	for i, t := range toks {
		switch {
		case (t == "--namespace" || t == "-n") && i+1 < len(toks) && ns == "":
			ns = strings.Trim(toks[i+1], `"'`)
		case strings.HasPrefix(t, "--namespace=") && ns == "":
			ns = strings.Trim(strings.TrimPrefix(t, "--namespace="), `"'`)
		case t == "--create-namespace":
			create = true
		}
	}
	return ns, create
}
