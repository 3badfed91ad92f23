package resolver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/app"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// imageRefsReport is what AICR writes to --image-refs: the pushed manifest digest and a newline.
var imageRefsReport = regexp.MustCompile(`^(sha256:[a-f0-9]{64})\n?$`)

// bundleStage runs the bundle Job (docs/design/aicr-cli.md section 7) and returns the rendered bundle and
// its reference for the plan. With a registry the Job pushes the bundle itself with AICR's
// `-o oci://<registry>/bundles/cluster:<job name>-<job UID>` and `--image-refs`, under a run-scoped
// credential Secret (RES-8); the digest it reports is untrusted: the bundle is pulled by that
// digest through the Registry port, which verifies the artifact before it is unpacked, and
// the reference is <registry>/bundles/cluster@<digest> (REG-1), once the Job's own tag is shown
// to name that digest. Without a registry (only the
// test suites run the resolver so; the operator refuses to start without one) the Job writes
// the bundle to its output ConfigMap and the plan has no bundle reference. A bundle AICR
// rejects for an override component the recipe does not list stalls with OverridePathUnknown.
func (r *Reconciler) bundleStage(ctx context.Context, run *resolution) *outcome {
	bundle, ref, out := r.renderBundle(ctx, run.cr, run.bundleJob, run.recipe, run.renderFlags, run.unlisted)
	if out != nil {
		return out
	}
	run.bundleRendered, run.bundle, run.bundleRef = true, bundle, ref
	return nil
}

// renderBundle runs bundle Job name over recipe with AICR's render flags args and returns the
// rendered bundle and its reference (bundleStage).
func (r *Reconciler) renderBundle(ctx context.Context, cr *aicrv1alpha1.ClusterRuntime, name string, recipe []byte,
	args, unlisted []string) (fs.FS, string, *outcome) {
	st := app.Stage{
		Kind: ports.JobBundle, Name: name, Inputs: map[string][]byte{inputRecipe: recipe},
		Args: append([]string{"--log-json", "bundle", "--deployer", "helm", "-r", inputsDir + inputRecipe}, args...),
	}
	if r.Registry == nil {
		st.Args = append(st.Args, "-o", r.Jobs.OutputRef(name))
		files, out := r.runStage(ctx, cr, st)
		if out != nil {
			return nil, "", rejectedOverride(out, unlisted)
		}
		return files, "", nil
	}
	target, err := r.Registry.BundleTarget(ctx)
	if err != nil {
		return nil, "", registryOutcome("get the bundle push credential", err)
	}
	st.Args = append(st.Args, shared.BundlePushArgs(target.Repository, name, target.PlainHTTP)...)
	st.Credentials = target.DockerConfig
	files, uid, out := r.runStageJob(ctx, cr, st)
	if out != nil {
		return nil, "", rejectedOverride(out, unlisted)
	}
	refs, _ := fs.ReadFile(files, ports.JobImageRefsFile)
	m := imageRefsReport.FindSubmatch(refs)
	if m == nil {
		return nil, "", r.refuseBundle(ctx, name, fmt.Sprintf("aicr bundle job %s reported %q as the digest it pushed (--image-refs %s), not sha256:<64 hex>",
			name, refs, ports.JobImageRefsPath))
	}
	digest := ports.Digest(m[1])
	bundle, err := r.Registry.PullBundle(ctx, digest)
	if errors.Is(err, ports.ErrBundleRejected) || errors.Is(err, ports.ErrArtifactNotFound) {
		return nil, "", r.refuseBundle(ctx, name, fmt.Sprintf("aicr bundle job %s reported %s: %v", name, digest, err))
	}
	if err != nil {
		return nil, "", registryOutcome("pull the rendered bundle", err)
	}
	if out := r.checkBundleTag(ctx, target.Repository, name, uid, digest); out != nil {
		return nil, "", out
	}
	return bundle, target.Repository + "@" + string(digest), nil
}

// checkBundleTag proves that the digest bundle Job name, of UID uid, reported is the bundle it
// pushed: the Job pushes to <repository>:<its name>-<its UID> (shared.BundleTag), a tag of its
// run alone, so the tag must name that digest. An earlier bundle's digest replayed into this
// Job's report (one an earlier run of the same name pushed among them), or a tag that is gone
// or moved, is refused as a digest that is not this run's.
func (r *Reconciler) checkBundleTag(ctx context.Context, repository, name, uid string, reported ports.Digest) *outcome {
	if uid == "" {
		return r.refuseBundle(ctx, name, fmt.Sprintf("aicr bundle job %s reported %s, but the Job has no UID to bind its tag to", name, reported))
	}
	tag := repository + ":" + shared.BundleTag(name, uid)
	tagged, err := r.Registry.Resolve(ctx, tag)
	switch {
	case errors.Is(err, ports.ErrArtifactNotFound):
		return r.refuseBundle(ctx, name, fmt.Sprintf("aicr bundle job %s reported %s, but the tag it pushes, %s, is not in the registry",
			name, reported, tag))
	case err != nil:
		return registryOutcome("resolve the bundle job's tag", err)
	case tagged != reported:
		return r.refuseBundle(ctx, name, fmt.Sprintf("aicr bundle job %s reported %s, but the tag it pushed, %s, names %s",
			name, reported, tag, tagged))
	}
	return nil
}

// refuseBundle keeps the bundle Job for inspection (RES-7) and stalls AICRArtifactUnsupported:
// what the Job reported is not a bundle the operator reads.
func (r *Reconciler) refuseBundle(ctx context.Context, job, msg string) *outcome {
	if err := r.Jobs.Retain(ctx, ports.JobRef{Name: job}); err != nil {
		return transient(err)
	}
	return stalled(domain.ArtifactUnreadable(msg +
		"; the Job is kept for inspection: check what else pushes to the bundle repository, then request a new resolution " +
		"(annotate the ClusterRuntime with " + aicrv1alpha1.AnnotationResolveRequestedAt + "=<now>)"))
}

// registryOutcome stalls on a credential problem (RES-6) and retries anything else.
func registryOutcome(what string, err error) *outcome {
	if s := domain.RegistryStall(what, err); s != nil {
		return stalled(s)
	}
	return transient(fmt.Errorf("%s: %w", what, err))
}
