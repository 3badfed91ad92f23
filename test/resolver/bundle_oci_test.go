package resolver_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content/file"
	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/mocks"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/aicroci"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// paddedValues is the values file the large bundle carries: 2 MiB of base64 of random bytes
// as YAML comments, so the compressed layer stays above 1 MiB (the ConfigMap cap).
const paddedValues = "001-aws-ebs-csi-driver/values.yaml"

// chartsPinned is a Registry double serving every chart pinned (charts are not what these
// tests are about).
func chartsPinned(t *testing.T) *mocks.MockRegistry {
	reg := mocks.NewMockRegistry(gomock.NewController(t))
	reg.EXPECT().MirrorChart(gomock.Any(), gomock.Any()).Return(ports.PinnedChart{ManifestDigest: pinned, ArchiveDigest: archive}, nil).AnyTimes()
	reg.EXPECT().PushWrapper(gomock.Any(), gomock.Any()).Return(ports.PinnedChart{ManifestDigest: wrapper}, nil).AnyTimes()
	return reg
}

// TestResolved_BundleOverOCIOfMoreThanOneMiB: the bundle Job pushes a bundle far above the
// ConfigMap cap to <registry>/bundles/cluster with AICR's -o oci:// under its run-scoped
// credential and reports the digest through --image-refs; the operator pulls and verifies it
// by that digest, builds the plan from it and records <registry>/bundles/cluster@<digest>.
// Pulling that reference as `oras pull` does (oras-go into a file store) yields exactly the
// directory the AICR CLI rendered, which `kubectl aicr reproduce` diffs against (CLI-6).
func TestResolved_BundleOverOCIOfMoreThanOneMiB(t *testing.T) {
	var rendered map[string][]byte
	f, allowed := fixture(t, "1.1.0", v1Synthetic, func(files map[string][]byte) {
		rnd := rand.New(rand.NewPCG(1, 2))
		raw := make([]byte, 3<<19)
		for i := range raw {
			raw[i] = byte(rnd.Uint32())
		}
		pad := base64.StdEncoding.EncodeToString(raw)
		var b strings.Builder
		b.Write(files[paddedValues])
		for len(pad) > 0 {
			n := min(76, len(pad))
			b.WriteString("\n# " + pad[:n])
			pad = pad[n:]
		}
		files[paddedValues] = []byte(b.String() + "\n")
		rendered = files
	})
	bundles := serveBundleRegistry(t, pushPass)
	start(t, options{version: "1.1.0", allowed: allowed, behavior: f.Behavior(), registry: realBundles{Registry: chartsPinned(t), Bundles: bundles.reg}})
	createRuntime(t, runtimeSpec())
	_, live := resolved(t, domain.ReasonResolved)
	stored, err := configdoc.DecodePlan([]byte(planConfigMap(t, live.Status.CandidatePlanDigest).Data[configdoc.PlanKey]))
	require.NoError(t, err)
	digest, ok := strings.CutPrefix(stored.BundleRef, bundles.repository()+"@")
	require.True(t, ok, "bundle reference %q is in %s", stored.BundleRef, bundles.repository())

	ctx := context.Background()
	repo, err := aicroci.Repository(bundles.repository(), true, bundles.push())
	require.NoError(t, err)
	desc, raw, err := oras.FetchBytes(ctx, repo, digest, oras.DefaultFetchBytesOptions)
	require.NoError(t, err)
	assert.Equal(t, digest, string(desc.Digest))
	var m ocispec.Manifest
	require.NoError(t, json.Unmarshal(raw, &m))
	require.Len(t, m.Layers, 1)
	assert.Equal(t, aicroci.ArtifactType, m.ArtifactType)
	assert.Greater(t, m.Layers[0].Size, int64(1<<20), "the bundle layer is larger than a ConfigMap can hold")
	t.Logf("bundle layer of %d bytes (%d files) at %s", m.Layers[0].Size, len(rendered), stored.BundleRef)

	dir := t.TempDir()
	store, err := file.New(dir)
	require.NoError(t, err)
	defer func() { require.NoError(t, store.Close()) }()
	_, err = oras.Copy(ctx, repo, digest, store, digest, oras.DefaultCopyOptions)
	require.NoError(t, err, "oras pull %s", stored.BundleRef)
	pulled, err := jobexec.ReadTree(dir)
	require.NoError(t, err)
	assert.Equal(t, rendered, pulled, "oras pull of the recorded digest is the directory AICR rendered")
}

// forge is a bundle Job behavior whose AICR reports refs through --image-refs after pushing
// art (when set) with the right login: a Job that lies about, or pushed, something that is
// not its bundle.
func forge(version string, art *aicroci.Artifact, refs func(pushed string) string) jobexec.Behavior {
	return func(job *batchv1.Job, _ *corev1.ConfigMap) jobexec.Result {
		pushed := ""
		if art != nil {
			var err error
			if pushed, err = pushTo(job, art, ""); err != nil {
				return jobexec.Result{ExitCode: 8, Log: err.Error()}
			}
		}
		return jobexec.Result{Version: version, ImageRefs: refs(pushed)}
	}
}

// TestResolved_BundleDigestIsUntrusted: what a bundle Job reports as its pushed digest is
// pulled and verified before anything of it is read; a digest the registry does not hold, a
// report that is no digest, another artifact type, two layers or a layer over the bound stall
// AICRArtifactUnsupported, saying what was refused and what to do, and no plan is written.
func TestResolved_BundleDigestIsUntrusted(t *testing.T) {
	good, err := aicroci.Bundle(map[string][]byte{"bundle-info.yaml": []byte("aicrVersion: 1.1.0\n")})
	require.NoError(t, err)
	layer := good.Layers[0]
	forged := "sha256:" + strings.Repeat("e", 64)
	tests := []struct {
		name, contains string
		art            *aicroci.Artifact
		refs           func(pushed string) string
	}{
		{"a digest the registry does not hold", "artifact not found", nil, func(string) string { return forged + "\n" }},
		{"a report that is not a digest", "not sha256:<64 hex>", nil, func(string) string { return "latest\n" }},
		{"another artifact type", `artifact type "application/vnd.oci.image.config.v1+json"`,
			&aicroci.Artifact{ArtifactType: ocispec.MediaTypeImageConfig, Layers: []aicroci.Layer{layer}}, withNewline},
		{"two layers", "2 layers, want exactly one gzip tar layer",
			&aicroci.Artifact{ArtifactType: aicroci.ArtifactType, Layers: []aicroci.Layer{layer, {MediaType: layer.MediaType, Data: []byte("x")}}}, withNewline},
		{"a layer over the bound", "the bound is",
			&aicroci.Artifact{ArtifactType: aicroci.ArtifactType, Layers: []aicroci.Layer{{MediaType: layer.MediaType, Data: layer.Data, ClaimedSize: oci.MaxBundleLayerBytes + 1}}}, withNewline},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
			bundles := serveBundleRegistry(t, pushPass)
			behavior := func(job *batchv1.Job, in *corev1.ConfigMap) jobexec.Result {
				if job.Labels[jobs.KindLabel] == string(ports.JobBundle) {
					return forge(f.Version, tt.art, tt.refs)(job, in)
				}
				return f.Behavior()(job, in)
			}
			start(t, options{version: "1.1.0", allowed: allowed, behavior: behavior, registry: realBundles{Registry: chartsPinned(t), Bundles: bundles.reg}})
			createRuntime(t, runtimeSpec())
			cond, live := resolvedWith(t, string(domain.StallAICRArtifactUnsupported), tt.contains)
			assert.Contains(t, cond.Message, "resolve-requested-at")
			assert.Empty(t, live.Status.CandidatePlanDigest)
		})
	}
}

func withNewline(pushed string) string { return pushed + "\n" }

// ownTag is the tag of the Job's -o.
func ownTag(job *batchv1.Job) string {
	args := jobexec.AICRArgs(job)
	ref := args[slices.Index(args, "-o")+1]
	return ref[strings.LastIndex(ref, ":")+1:]
}

// pushTo pushes art to repository:tag of the Job's -o with the push login and returns its digest.
func pushTo(job *batchv1.Job, art *aicroci.Artifact, tag string) (string, error) {
	args := jobexec.AICRArgs(job)
	ref := strings.TrimPrefix(args[slices.Index(args, "-o")+1], "oci://")
	i := strings.LastIndex(ref, ":")
	repo, err := aicroci.Repository(ref[:i], true, auth.Credential{Username: pushUser, Password: pushPass})
	if err != nil {
		return "", err
	}
	if tag == "" {
		tag = ref[i+1:]
	}
	desc, err := art.Push(context.Background(), repo, tag)
	return string(desc.Digest), err
}

// TestResolved_BundleDigestBoundToTheJobsTag: a bundle Job pushes to a tag of its own run (its
// name and UID), so the digest it reports must be the one that tag names. A report of an
// earlier bundle's digest (a valid bundle of the repository, pushed under another tag, or
// under the Job's name alone as an earlier run of the same name would have) is refused,
// whether the Job pushed its own bundle under its tag or nothing at all:
// AICRArtifactUnsupported naming the tag, the Job kept, no plan written.
func TestResolved_BundleDigestBoundToTheJobsTag(t *testing.T) {
	earlier, err := aicroci.Bundle(map[string][]byte{"bundle-info.yaml": []byte("aicrVersion: 1.0.0\n")})
	require.NoError(t, err)
	own, err := aicroci.Bundle(map[string][]byte{"bundle-info.yaml": []byte("aicrVersion: 1.1.0\n")})
	require.NoError(t, err)
	for _, tc := range []struct {
		name, contains string
		pushOwn        bool
		// sameName replays a bundle pushed under the Job's name without its UID.
		sameName bool
	}{
		{"its own bundle under its tag", ", names sha256:", true, false},
		{"nothing under its tag", "is not in the registry", false, false},
		{"an earlier run of the same name", "is not in the registry", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
			bundles := serveBundleRegistry(t, pushPass)
			behavior := func(job *batchv1.Job, in *corev1.ConfigMap) jobexec.Result {
				if job.Labels[jobs.KindLabel] != string(ports.JobBundle) {
					return f.Behavior()(job, in)
				}
				earlierTag := "aicr-bundle-earlier"
				if tc.sameName {
					earlierTag = strings.TrimSuffix(ownTag(job), "-"+string(job.UID))
				}
				replayed, err := pushTo(job, &earlier, earlierTag)
				if err != nil {
					return jobexec.Result{ExitCode: 8, Log: err.Error()}
				}
				if tc.pushOwn {
					if _, err := pushTo(job, &own, ""); err != nil {
						return jobexec.Result{ExitCode: 8, Log: err.Error()}
					}
				}
				return jobexec.Result{Version: f.Version, ImageRefs: replayed + "\n"}
			}
			start(t, options{version: "1.1.0", allowed: allowed, behavior: behavior, registry: realBundles{Registry: chartsPinned(t), Bundles: bundles.reg}})
			createRuntime(t, runtimeSpec())
			cond, live := resolvedWith(t, string(domain.StallAICRArtifactUnsupported), tc.contains)
			assert.Contains(t, cond.Message, "the tag it pushe")
			assert.Contains(t, cond.Message, ":aicr-bundle-")
			assert.Empty(t, live.Status.CandidatePlanDigest)
		})
	}
}

// TestResolved_BundlePushCredential: the bundle Job pushes with the credential of its
// run-scoped Secret only. A login the registry refuses makes AICR exit 4 and the resolution
// stall AICRUnauthorized; a docker config without an entry for the registry fails the push
// before any response, AICR exits 8 and the resolution stalls AICRInternal (RES-4, RES-8).
// When the operator cannot obtain a push credential at all, no bundle Job starts and the
// resolution stalls with the registry reason (RES-6).
func TestResolved_BundlePushCredential(t *testing.T) {
	for _, tc := range []struct {
		name, password string
		reason         domain.StallReason
	}{{"wrong", "wrong", domain.StallAICRUnauthorized}, {"missing", "", domain.StallAICRInternal}} {
		t.Run(tc.name, func(t *testing.T) {
			f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
			bundles := serveBundleRegistry(t, tc.password)
			start(t, options{version: "1.1.0", allowed: allowed, behavior: f.Behavior(), registry: realBundles{Registry: chartsPinned(t), Bundles: bundles.reg}})
			createRuntime(t, runtimeSpec())
			cond, _ := resolvedWith(t, string(tc.reason), "OCI registry push failed")
			assert.Contains(t, cond.Message, "aicr bundle job")
		})
	}
	t.Run("unavailable", func(t *testing.T) {
		reg := chartsPinned(t)
		reg.EXPECT().BundleTarget(gomock.Any()).Return(ports.BundleTarget{}, fmt.Errorf("read registry secret: %w", ports.ErrCredentialsUnavailable)).AnyTimes()
		f, allowed := fixture(t, "1.1.0", v1Synthetic, nil)
		h := start(t, options{version: "1.1.0", allowed: allowed, behavior: f.Behavior(), registry: reg})
		createRuntime(t, runtimeSpec())
		resolvedWith(t, string(domain.StallRegistryCredentialsUnavailable), "get the bundle push credential")
		for _, job := range h.exec.Executed() {
			assert.NotContains(t, job, "aicr-bundle-", "no bundle Job runs without a push credential")
		}
	})
}
