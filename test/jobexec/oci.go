package jobexec

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/errcode"

	"github.com/NVIDIA/aicr/adapters/bundletar"
	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/test/aicroci"
)

// argValue returns the value following flag in args ("" when absent).
func argValue(args []string, flag string) string {
	i := slices.Index(args, flag)
	if i < 0 || i+1 >= len(args) {
		return ""
	}
	return args[i+1]
}

// ociOutput returns the oci:// destination of a Job's -o, if it has one.
func ociOutput(job *batchv1.Job) (string, bool) {
	return strings.CutPrefix(argValue(AICRArgs(job), "-o"), "oci://")
}

// OCIReference splits the destination of `-o oci://<dest>` into the repository and the tag
// AICR v1 pushes to: the tag dest names, else the version of the AICR binary (pkg/cli/bundle.go).
// A registry port is not a tag.
func OCIReference(dest, version string) (repository, tag string) {
	if i := strings.LastIndex(dest, ":"); i > strings.LastIndex(dest, "/") {
		return dest[:i], dest[i+1:]
	}
	return dest, version
}

// pushBundle plays `aicr bundle -o oci://<repository>:<tag> --image-refs <file> [--plain-http]`
// (docs/design/aicr-cli.md section 7) for a successful bundle result: the directories AICR v1
// writes checked first (PrePush), the bundle directory packed as AICR packs it (aicroci),
// pushed with the credential of the mounted docker config (DOCKER_CONFIG, the Job's
// run-scoped Secret; anonymous without an entry for the host), and the digest published to
// --image-refs as v1 publishes it (PublishImageRefs, into dir). It returns the published file
// ("" without --image-refs). A push the registry refuses fails as AICR fails (exit code per
// docs/design/aicr-cli.md section 4).
func pushBundle(ctx context.Context, job *batchv1.Job, secret *corev1.Secret, dest, dir string, res Result) (Result, string) {
	pod := &job.Spec.Template.Spec
	if refused := PrePush(pod); refused != nil {
		return *refused, ""
	}
	files, err := bundleFiles(res.Bundle)
	if err != nil {
		return failure(8, "[INTERNAL] failed to package bundle: "+err.Error()), ""
	}
	art, err := aicroci.Bundle(files)
	if err != nil {
		return failure(8, "[INTERNAL] failed to package bundle: "+err.Error()), ""
	}
	ref, tag := OCIReference(dest, res.Version)
	args := AICRArgs(job)
	if !dockerConfigMounted(job) {
		secret = nil // AICR reads $DOCKER_CONFIG/config.json only
	}
	cred, err := dockerCredential(secret, strings.SplitN(ref, "/", 2)[0])
	if err != nil {
		return failure(8, "[INTERNAL] failed to read the docker config: "+err.Error()), ""
	}
	repo, err := aicroci.Repository(ref, slices.Contains(args, "--plain-http"), cred)
	if err != nil {
		return failure(2, "[INVALID_REQUEST] invalid registry reference: "+err.Error()), ""
	}
	desc, err := art.Push(ctx, repo, tag)
	if err != nil {
		return pushFailure(err), ""
	}
	return publishImageRefs(job, dir, Result{Version: res.Version, ImageRefs: string(desc.Digest) + "\n"})
}

// publishImageRefs publishes res.ImageRefs to a bundle Job's --image-refs as AICR v1 does
// once its push succeeded (PublishImageRefs, into dir), and returns the published file ("" for
// a Job without --image-refs).
func publishImageRefs(job *batchv1.Job, dir string, res Result) (Result, string) {
	if argValue(AICRArgs(job), "--image-refs") == "" {
		return res, ""
	}
	file, refused := PublishImageRefs(&job.Spec.Template.Spec, dir, res.ImageRefs)
	if refused != nil {
		return *refused, ""
	}
	return res, file
}

// pushFailure is AICR's failed push (classifyRegistryPushFailure): 401 and 403 are
// UNAUTHORIZED, 404 NOT_FOUND, 429 RATE_LIMIT_EXCEEDED, other 4xx INVALID_REQUEST, 5xx and
// unreachable registries SERVICE_UNAVAILABLE, anything else (such as a registry asking for a
// login the docker config does not hold, which fails before any response) INTERNAL.
func pushFailure(err error) Result {
	code, name := int32(8), "INTERNAL"
	var resp *errcode.ErrorResponse
	var netErr net.Error
	switch {
	case errors.As(err, &resp):
		code, name = statusFailure(resp.StatusCode)
	case errors.As(err, &netErr):
		code, name = 6, "SERVICE_UNAVAILABLE"
	}
	return failure(code, fmt.Sprintf("[%s] OCI registry push failed: %v", name, err))
}

// statusFailure is AICR's exit code and error code for a registry's HTTP status.
func statusFailure(status int) (int32, string) {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return 4, "UNAUTHORIZED"
	case status == http.StatusNotFound:
		return 3, "NOT_FOUND"
	case status == http.StatusTooManyRequests:
		return 7, "RATE_LIMIT_EXCEEDED"
	case status < http.StatusInternalServerError:
		return 2, "INVALID_REQUEST"
	}
	return 6, "SERVICE_UNAVAILABLE"
}

// BundleFiles are the files of the bundle f plays, keyed by slash path.
func (f Fixture) BundleFiles() (map[string][]byte, error) {
	return bundleFiles(f.Bundle)
}

// bundleFiles unpacks a bundle archive into files keyed by slash path.
func bundleFiles(archive []byte) (map[string][]byte, error) {
	fsys, err := bundletar.Untar(archive, bundletar.MaxBundleBytes)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files[p], err = fs.ReadFile(fsys, p)
		return err
	})
	return files, err
}

// dockerCredential returns the credential of host in the Secret's docker config.json
// (auth.EmptyCredential without a Secret or an entry for host).
func dockerCredential(secret *corev1.Secret, host string) (auth.Credential, error) {
	if secret == nil {
		return auth.EmptyCredential, nil
	}
	var cfg struct {
		Auths map[string]struct {
			Auth string `json:"auth"`
		} `json:"auths"`
	}
	if err := json.Unmarshal(secret.Data[corev1.DockerConfigJsonKey], &cfg); err != nil {
		return auth.EmptyCredential, err
	}
	entry, ok := cfg.Auths[host]
	if !ok {
		return auth.EmptyCredential, nil
	}
	dec, err := base64.StdEncoding.DecodeString(entry.Auth)
	if err != nil {
		return auth.EmptyCredential, err
	}
	user, pass, _ := strings.Cut(string(dec), ":")
	return auth.Credential{Username: user, Password: pass}, nil
}

// dockerConfigMounted reports whether the aicr container's DOCKER_CONFIG is the directory its
// registry Secret is mounted at, with the docker config as config.json.
func dockerConfigMounted(job *batchv1.Job) bool {
	pod := job.Spec.Template.Spec
	c := aicrContainer(&pod)
	var dir string
	for _, env := range c.Env {
		if env.Name == "DOCKER_CONFIG" {
			dir = env.Value
		}
	}
	for _, m := range c.VolumeMounts {
		if m.MountPath != dir {
			continue
		}
		for _, v := range pod.Volumes {
			if v.Name == m.Name && v.Secret != nil && v.Secret.SecretName == jobs.RegistryName(job.Name) &&
				slices.Contains(v.Secret.Items, corev1.KeyToPath{Key: corev1.DockerConfigJsonKey, Path: "config.json"}) {
				return true
			}
		}
	}
	return false
}
