package jobexec

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/NVIDIA/aicr/adapters/aicr"
	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/ports"
)

// Fixture is what a successful AICR plays for each command.
type Fixture struct {
	// Version is the AICR version every Job reports.
	Version string
	// Snapshot is the snapshot.yaml of the snapshot Job.
	Snapshot []byte
	// Recipe is the recipe the recipe Job writes.
	Recipe []byte
	// Bundle is the gzip tar archive the bundle Job writes.
	Bundle []byte
	// Assessment is the upgrade-check JSON report.
	Assessment []byte
	// Validation is the CTRF report of deployment validation (every check passed).
	Validation []byte
}

// Behavior plays the fixture: every Job succeeds with its artifact, except a Job whose -o AICR
// refuses (RefusedOutput), a bundle Job with an override of a component AICR does not know
// or a flag it cannot parse, and an upgrade check that fails on its report's verdicts
// (UpgradeCheckExit).
func (f Fixture) Behavior() Behavior {
	return func(job *batchv1.Job, inputs *corev1.ConfigMap) Result {
		if refused := RefusedOutput(job); refused != nil {
			return *refused
		}
		kind := ports.JobKind(job.Labels[jobs.KindLabel])
		switch kind {
		case ports.JobBundle:
			if res, rejected := rejectedOverride(job, inputs); rejected {
				return res
			}
		case ports.JobUpgradeCheck:
			return UpgradeCheckExit(AICRArgs(job), f.Result(kind))
		case ports.JobSnapshot, ports.JobRecipe, ports.JobValidate:
		}
		return f.Result(kind)
	}
}

// UpgradeCheckExit plays how `aicr upgrade-check` ends once it wrote res's report: with
// --fail-on-error (true unless given false) and a report whose summary.failing is above zero
// it fails with CONFLICT, exit 2, the report still written; otherwise it exits 0. A report
// that does not decode is left to the reader.
func UpgradeCheckExit(args []string, res Result) Result {
	if slices.Contains(args, "--fail-on-error=false") || argValue(args, "--fail-on-error") == "false" {
		return res
	}
	var report struct {
		Summary struct {
			Failing int `json:"failing"`
		} `json:"summary"`
	}
	if json.Unmarshal([]byte(res.Data[jobs.OutputKey]), &report) != nil || report.Summary.Failing == 0 {
		return res
	}
	failed := failure(2, fmt.Sprintf("[CONFLICT] upgrade check found %d failing component(s)", report.Summary.Failing))
	res.ExitCode, res.Log = failed.ExitCode, failed.Log
	return res
}

// Result is the successful result of a Job of kind.
func (f Fixture) Result(kind ports.JobKind) Result {
	res := Result{Version: f.Version}
	switch kind {
	case ports.JobSnapshot:
		res.Data = map[string]string{jobs.OutputKey: string(f.Snapshot), "format": "yaml"}
	case ports.JobRecipe:
		res.Data = map[string]string{jobs.OutputKey: string(f.Recipe), "format": "yaml"}
	case ports.JobUpgradeCheck:
		res.Data = map[string]string{jobs.OutputKey: string(f.Assessment), "format": "json"}
	case ports.JobBundle:
		res.Bundle = f.Bundle
	case ports.JobValidate:
		res.Data = map[string]string{jobs.OutputKey: string(f.Validation), "format": "json"}
	}
	return res
}

// Root returns the repository root (for test data paths).
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// BundleFixture loads a v1 bundle directory of test/testdata/aicr (relative
// path, e.g. v1-layout-synthetic-.../bundle-helm) with the synthetic snapshot,
// the bundle's own recipe.yaml and a passing CTRF report of test/testdata/ctrf.
// mutate, if not nil, edits the bundle files before they are archived; the README and the
// checksums are then written as AICR writes them (StampREADME, checksums).
func BundleFixture(version, dir string, mutate func(files map[string][]byte)) (Fixture, error) {
	root := filepath.Join(Root(), "test", "testdata", "aicr", dir)
	files, err := ReadTree(root)
	if err != nil {
		return Fixture{}, err
	}
	if mutate != nil {
		mutate(files)
	}
	if err = StampREADME(files); err != nil {
		return Fixture{}, err
	}
	files["checksums.txt"] = checksums(files)
	archive, err := Tar(files)
	if err != nil {
		return Fixture{}, err
	}
	snapshot, err := os.ReadFile(filepath.Join(Root(), "test", "jobexec", "testdata", "snapshot-eks-h100-ubuntu.yaml"))
	if err != nil {
		return Fixture{}, fmt.Errorf("read snapshot fixture: %w", err)
	}
	validation, err := os.ReadFile(filepath.Join(Root(), "test", "testdata", "ctrf", "validate-deployment-passed.ctrf.json"))
	if err != nil {
		return Fixture{}, fmt.Errorf("read validation report fixture: %w", err)
	}
	return Fixture{
		Version: version, Snapshot: snapshot, Recipe: files["recipe.yaml"], Bundle: archive,
		Assessment: []byte(`{"summary":{"components":0,"failing":0},"components":[]}`), Validation: validation,
	}, nil
}

// ReadTree reads every regular file under dir, keyed by slash path.
func ReadTree(dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	return files, nil
}

// Tar archives files (slash paths) as a gzip tar, in sorted order.
func Tar(files map[string][]byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(files[n])), Typeflag: tar.TypeReg}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(files[n]); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// FixtureNamespaces are the namespaces the releases of the fixture bundle dir (under
// test/testdata/aicr) deploy into, sorted: what the chart's namespaces.components lists for it.
func FixtureNamespaces(dir string) ([]string, error) {
	b, err := aicr.ReadDir(filepath.Join(Root(), "test", "testdata", "aicr", dir))
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, r := range b.Releases {
		if !seen[r.Namespace] {
			seen[r.Namespace] = true
			out = append(out, r.Namespace)
		}
	}
	sort.Strings(out)
	return out, nil
}
