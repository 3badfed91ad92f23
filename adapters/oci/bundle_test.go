package oci_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"os"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/NVIDIA/aicr/adapters/aicr"
	"github.com/NVIDIA/aicr/adapters/bundletar"
	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/aicroci"
	"github.com/NVIDIA/aicr/test/jobexec"
)

const (
	fixtureBundle = "../../test/testdata/aicr/v1-layout-synthetic-eks-h100-ubuntu-training-kubeflow/bundle-helm"
	planDigest    = "sha256:3f9a1c0d2b7e4a51aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
)

// pushAICR pushes art to <registry>/bundles/cluster:tag as `aicr bundle -o oci://` does.
func pushAICR(t testing.TB, reg *oci.Registry, art aicroci.Artifact, cred auth.Credential) ports.Digest {
	t.Helper()
	repo, err := aicroci.Repository(reg.Base()+"/"+oci.BundlesRepository, true, cred)
	require.NoError(t, err)
	desc, err := art.Push(context.Background(), repo, "run-1")
	require.NoError(t, err)
	return ports.Digest(desc.Digest)
}

func fixtureFiles(t testing.TB) map[string][]byte {
	t.Helper()
	files, err := jobexec.ReadTree(fixtureBundle)
	require.NoError(t, err)
	return files
}

func TestPullBundle_AICRArtifactReadsAsTheBundleDirectory(t *testing.T) {
	t.Parallel()
	reg, _ := newRegistry(t)
	art, err := aicroci.Bundle(fixtureFiles(t))
	require.NoError(t, err)
	d := pushAICR(t, reg, art, auth.EmptyCredential)

	got, err := reg.PullBundle(context.Background(), d)
	require.NoError(t, err)
	src := os.DirFS(fixtureBundle)
	require.NoError(t, fs.WalkDir(src, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		want, err := fs.ReadFile(src, p)
		require.NoError(t, err)
		have, err := fs.ReadFile(got, p)
		require.NoError(t, err, p)
		assert.Equal(t, want, have, p)
		return nil
	}))
	wantBundle, err := aicr.ReadDir(fixtureBundle)
	require.NoError(t, err)
	gotBundle, err := aicr.ReadBundle(got)
	require.NoError(t, err, "the pulled bundle is readable by the bundle reader")
	assert.Equal(t, wantBundle, gotBundle)
}

// TestPullBundle_RefusesWhatIsNotAnAICRBundle: the digest a bundle Job reports is untrusted;
// anything at it that is not AICR's bundle artifact is refused with ErrBundleRejected before
// its layer is read, and a digest the registry does not hold is ErrArtifactNotFound.
func TestPullBundle_RefusesWhatIsNotAnAICRBundle(t *testing.T) {
	t.Parallel()
	good, err := aicroci.Bundle(map[string][]byte{"bundle-info.yaml": []byte("x")})
	require.NoError(t, err)
	layer := good.Layers[0]
	escaping, _, err := aicroci.Pack(map[string][]byte{"../escape.yaml": []byte("x")})
	require.NoError(t, err)
	tests := []struct {
		name, contains string
		art            aicroci.Artifact
	}{
		{"another artifact type", `artifact type "application/vnd.aicr.bundle.v1"`,
			aicroci.Artifact{ArtifactType: "application/vnd.aicr.bundle.v1", Layers: []aicroci.Layer{layer}}},
		{"two layers", "2 layers, want exactly one gzip tar layer",
			aicroci.Artifact{ArtifactType: aicroci.ArtifactType, Layers: []aicroci.Layer{layer, {MediaType: ocispec.MediaTypeImageLayerGzip, Data: []byte("second")}}}},
		{"no layer", "0 layers",
			aicroci.Artifact{ArtifactType: aicroci.ArtifactType}},
		{"a layer that is not a gzip tar", `layer media type "application/vnd.aicr.bundle.file.v1"`,
			aicroci.Artifact{ArtifactType: aicroci.ArtifactType, Layers: []aicroci.Layer{{MediaType: "application/vnd.aicr.bundle.file.v1", Data: []byte("x")}}}},
		{"a layer over the size bound", "the bound is",
			aicroci.Artifact{ArtifactType: aicroci.ArtifactType, Layers: []aicroci.Layer{{MediaType: layer.MediaType, Data: layer.Data, ClaimedSize: oci.MaxBundleLayerBytes + 1}}}},
		{"an archive escaping the bundle directory", bundletar.ErrBadArchive.Error(),
			aicroci.Artifact{ArtifactType: aicroci.ArtifactType, Layers: []aicroci.Layer{{MediaType: layer.MediaType, Data: escaping}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reg, _ := newRegistry(t)
			_, err := reg.PullBundle(context.Background(), pushAICR(t, reg, tt.art, auth.EmptyCredential))
			require.ErrorIs(t, err, ports.ErrBundleRejected)
			assert.Contains(t, err.Error(), tt.contains)
		})
	}
	t.Run("a digest the registry does not hold", func(t *testing.T) {
		t.Parallel()
		reg, _ := newRegistry(t)
		_, err := reg.PullBundle(context.Background(), ports.Digest("sha256:"+hexDigest([]byte("none"))))
		require.ErrorIs(t, err, ports.ErrArtifactNotFound)
	})
	t.Run("a digest that is not sha256", func(t *testing.T) {
		t.Parallel()
		reg, _ := newRegistry(t)
		_, err := reg.PullBundle(context.Background(), "sha256:../../charts/x")
		require.ErrorIs(t, err, ports.ErrBundleRejected)
	})
}

// credentialOf decodes the one entry of a docker config.json.
func credentialOf(t *testing.T, raw []byte, host string) auth.Credential {
	t.Helper()
	var cfg struct {
		Auths map[string]struct {
			Auth string `json:"auth"`
		} `json:"auths"`
	}
	require.NoError(t, json.Unmarshal(raw, &cfg))
	require.Len(t, cfg.Auths, 1, "only the registry host")
	dec, err := base64.StdEncoding.DecodeString(cfg.Auths[host].Auth)
	require.NoError(t, err)
	user, pass, _ := strings.Cut(string(dec), ":")
	return auth.Credential{Username: user, Password: pass}
}

// TestBundleTarget_PushCredentialOfEveryProvider: the docker config a bundle Job receives
// holds the provider's push credential for the registry host only, and authenticates a push
// as AICR makes it; the in-cluster provider's target is plain HTTP (RES-8).
func TestBundleTarget_PushCredentialOfEveryProvider(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		user, pass string
		provider   func(t *testing.T, host string) oci.CredentialProvider
	}{
		{"static", "admin", "s3cret", func(_ *testing.T, host string) oci.CredentialProvider {
			return oci.Static{Secrets: secrets{"regcred": dockerConfig(host, "admin", "s3cret")}, SecretName: "regcred"}
		}},
		{"inCluster", oci.InClusterPushUsername, "push-pass", func(*testing.T, string) oci.CredentialProvider {
			return oci.InCluster{Secrets: secrets{"push": {"username": []byte(oci.InClusterPushUsername), "password": []byte("push-pass")}}, SecretName: "push"}
		}},
		{"aws", "AWS", "push-token-1", func(t *testing.T, _ string) oci.CredentialProvider {
			e, _, _, _, _ := newECRWithPush()
			_, err := e.Refresh(context.Background())
			require.NoError(t, err)
			return e
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			host := serveRegistry(t, basicAuth(tt.user, tt.pass))
			reg, err := oci.New(oci.Options{Registry: host + "/aicr", PlainHTTP: true, Retry: fastRetry, Credentials: tt.provider(t, host)})
			require.NoError(t, err)
			target, err := reg.BundleTarget(context.Background())
			require.NoError(t, err)
			assert.Equal(t, host+"/aicr/bundles/cluster", target.Repository)
			assert.True(t, target.PlainHTTP)
			art, err := aicroci.Bundle(fixtureFiles(t))
			require.NoError(t, err)
			d := pushAICR(t, reg, art, credentialOf(t, target.DockerConfig, host))
			_, err = reg.PullBundle(context.Background(), d)
			require.NoError(t, err)
		})
	}
	t.Run("a provider failure keeps its reason", func(t *testing.T) {
		t.Parallel()
		reg, err := oci.New(oci.Options{Registry: "registry.test/aicr", Credentials: oci.Static{Secrets: secrets{}, SecretName: "gone"}})
		require.NoError(t, err)
		_, err = reg.BundleTarget(context.Background())
		require.ErrorIs(t, err, ports.ErrCredentialsUnavailable)
	})
}
