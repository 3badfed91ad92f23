package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// OCI annotation and label keys the image carries.
const (
	labelSource   = "org.opencontainers.image.source"
	labelVersion  = "org.opencontainers.image.version"
	labelRevision = "org.opencontainers.image.revision"
	labelCreated  = "org.opencontainers.image.created"
	refName       = "org.opencontainers.image.ref.name"
)

// platformBinary is the operator binary built for one platform.
type platformBinary struct {
	platform v1.Platform
	binary   []byte
}

// imageSpec is everything the image depends on; equal specs give equal digests.
type imageSpec struct {
	binaries []platformBinary
	caBundle []byte
	source   string
	version  string
	revision string
	created  time.Time
}

// labels returns the OCI labels of every image of the index.
func (s imageSpec) labels() map[string]string {
	return map[string]string{
		labelSource:   s.source,
		labelVersion:  s.version,
		labelRevision: s.revision,
		labelCreated:  s.created.UTC().Format(time.RFC3339),
	}
}

// buildImage builds the single-platform image of one binary on the empty base (scratch).
func buildImage(s imageSpec, pb platformBinary) (v1.Image, error) {
	layer, err := buildLayer(layerFiles(pb.binary, s.caBundle), s.created)
	if err != nil {
		return nil, err
	}
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{
		Layer:     layer,
		MediaType: types.OCILayer,
		History:   v1.History{Created: v1.Time{Time: s.created}, CreatedBy: "imagebuild: /aicr-operator"},
	})
	if err != nil {
		return nil, fmt.Errorf("append layer: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	cf = cf.DeepCopy()
	cf.Created = v1.Time{Time: s.created}
	cf.OS, cf.Architecture, cf.Variant = pb.platform.OS, pb.platform.Architecture, pb.platform.Variant
	user := strconv.Itoa(nonroot) + ":" + strconv.Itoa(nonroot)
	cf.Config = v1.Config{
		User:       user,
		Entrypoint: []string{"/aicr-operator"},
		WorkingDir: "/",
		Env:        []string{"PATH=/"},
		Labels:     s.labels(),
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, fmt.Errorf("set config: %w", err)
	}
	return img, nil
}

// buildIndex builds the multi-platform OCI image index of every binary, in the given order.
func buildIndex(s imageSpec) (v1.ImageIndex, error) {
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	adds := make([]mutate.IndexAddendum, 0, len(s.binaries))
	for _, pb := range s.binaries {
		img, err := buildImage(s, pb)
		if err != nil {
			return nil, fmt.Errorf("image %s: %w", pb.platform.String(), err)
		}
		p := pb.platform
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &p}})
	}
	idx = mutate.AppendManifests(idx, adds...)
	return mutate.Annotations(idx, s.labels()).(v1.ImageIndex), nil
}

// writeLayout replaces dir with an OCI image layout whose index.json points at idx, tagged
// with the version, and returns the index digest.
func writeLayout(dir string, idx v1.ImageIndex, version string) (v1.Hash, error) {
	if err := os.RemoveAll(dir); err != nil {
		return v1.Hash{}, fmt.Errorf("remove %s: %w", dir, err)
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return v1.Hash{}, fmt.Errorf("write layout %s: %w", dir, err)
	}
	if err = p.AppendIndex(idx, layout.WithAnnotations(map[string]string{refName: version})); err != nil {
		return v1.Hash{}, fmt.Errorf("append index: %w", err)
	}
	d, err := idx.Digest()
	if err != nil {
		return v1.Hash{}, fmt.Errorf("index digest: %w", err)
	}
	return d, nil
}
