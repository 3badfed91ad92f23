package network

import (
	"errors"
	"fmt"

	"github.com/NVIDIA/aicr/adapters/aicr"
	"github.com/NVIDIA/aicr/adapters/bundletar"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// grownFixture is jobexec.BundleFixture of the recorded render dir (under test/testdata/aicr)
// grown to total releases by jobexec.AddSyntheticReleases, the added ones installed into
// namespace, then changed by mutate when it is not nil.
func grownFixture(version, dir string, total int, namespace string, mutate func(map[string][]byte)) (jobexec.Fixture, error) {
	var grown error
	fixture, err := jobexec.BundleFixture(version, dir, func(files map[string][]byte) {
		grown = jobexec.AddSyntheticReleases(files, total, namespace)
		if grown == nil && mutate != nil {
			mutate(files)
		}
	})
	return fixture, errors.Join(err, grown)
}

// AddSyntheticCharts serves a stand-in chart for every upstream release of the recorded render
// dir grown to total releases (SyntheticFixture's render before it names this server): the
// charts are read from the grown render as the operator reads a bundle Job's archive
// (bundletar.Untar, aicr.ReadBundle).
func (r *Server) AddSyntheticCharts(version, dir string, total int, namespace string) error {
	upstream, err := grownFixture(version, dir, total, namespace, nil)
	if err != nil {
		return err
	}
	fsys, err := bundletar.Untar(upstream.Bundle, bundletar.MaxBundleBytes)
	if err != nil {
		return err
	}
	read, err := aicr.ReadBundle(fsys)
	if err != nil {
		return err
	}
	if len(read.Releases) != total {
		return fmt.Errorf("the grown render of %s has %d releases, want %d", dir, len(read.Releases), total)
	}
	return r.AddBundleCharts(read)
}

// SyntheticFixture is the recorded render dir grown to total releases, the added ones
// installed into namespace, whose upstream releases name the copies of their repositories on
// the server at url (PointUpstreamAt): the render a simulated AICR plays once AddSyntheticCharts
// serves its charts.
func SyntheticFixture(version, dir string, total int, namespace, url string) (jobexec.Fixture, error) {
	return grownFixture(version, dir, total, namespace, PointUpstreamAt(url))
}
