package jobs

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/kube/wellknown"
	"github.com/NVIDIA/aicr/ports"
)

// Names and bounds of the Job protocol (see the package documentation).
const (
	// ServiceAccount is the identity AICR Jobs run as unless Config names
	// another (RES-8).
	ServiceAccount = "aicr-jobs"
	// AgentServiceAccount is the identity of AICR's snapshot agent in the discovery namespace:
	// the chart pre-provisions it with exactly the read rights the agent uses.
	AgentServiceAccount = "aicr-snapshot-agent"
	// JobUIDEnv is the variable ports.JobUIDArg names: the Job's UID, from its Pod's label.
	JobUIDEnv = "AICR_JOB_UID"
	// AgentModeEnv and NodeNameEnv are the environment of AICR's snapshot agent (docs/design/aicr-cli.md
	// section 5): agent mode on, and the node it runs on from the downward API.
	AgentModeEnv = "AICR_AGENT_MODE"
	NodeNameEnv  = "NODE_NAME"
	// AgentSystemdPath and AgentOSReleasePath are the node's paths the snapshot agent reads,
	// mounted read-only at the same paths from volumes AgentSystemdVolume and AgentOSReleaseVolume.
	AgentSystemdPath     = "/run/systemd"
	AgentOSReleasePath   = "/etc/os-release"
	AgentSystemdVolume   = "run-systemd"
	AgentOSReleaseVolume = "os-release"
	// ValidatorRegistryEnv and ValidatorTagEnv set where `aicr validate` takes its check
	// images from: the registry prefix replacing ghcr.io/nvidia, and the tag.
	ValidatorRegistryEnv = "AICR_VALIDATOR_IMAGE_REGISTRY"
	ValidatorTagEnv      = "AICR_VALIDATOR_IMAGE_TAG"
	// ContainerName is the name of the AICR container.
	ContainerName = "aicr"
	// InputsDir is where the inputs ConfigMap is mounted (the port's JobInputsDir).
	InputsDir = ports.JobInputsDir
	// RegistryDir is where the registry credential Secret is mounted.
	RegistryDir = "/aicr/registry"
	// OutputKey is the data key AICR writes a YAML artifact to with -o cm:// (ArtifactKeys).
	OutputKey = "snapshot.yaml"
	// BundleKey is the binaryData key holding a bundle as a gzip tar archive.
	BundleKey = "bundle.tar.gz"
	// VersionLabel is the label AICR sets on its output ConfigMap.
	VersionLabel = "app.kubernetes.io/version"
	// KindLabel carries the JobKind on every Job and run-scoped object.
	KindLabel = wellknown.Prefix + "aicr-job"
	// JobNameLabel is the label the Job controller sets on a Job's Pods.
	JobNameLabel = "batch.kubernetes.io/job-name"
	// TTLFinished is ttlSecondsAfterFinished of every Job (24 h, RES-7).
	TTLFinished int32 = 24 * 60 * 60
	// TTLStalled is ttlSecondsAfterFinished of a stalled stage's failed Job (7 days).
	TTLStalled int32 = 7 * 24 * 60 * 60
)

// ErrImageNotPinned reports an AICR image reference without a digest.
var ErrImageNotPinned = errors.New("AICR image must be pinned by digest (name@sha256:<64 hex>)")

var digestRef = regexp.MustCompile(`^[^@\s]+@sha256:[a-f0-9]{64}$`)

// Config is the installation configuration of the runner.
type Config struct {
	// Namespace is the Job namespace.
	Namespace string
	// OperatorNamespace receives kept result copies.
	OperatorNamespace string
	// Image is the pinned AICR image; it must carry a digest.
	Image string
	// CopierImage is the operator's own image, pinned by digest: a Job whose AICR pushes a
	// bundle runs it after AICR to hand the pushed digest back (CopyImageRefsCommand). Empty
	// means the runner starts no such Job.
	CopierImage string
	// ServiceAccount is the identity the Jobs run as (empty: ServiceAccount).
	// Deployment validation runs as its own identity in its own namespace.
	ServiceAccount string
	// Agent makes every Job AICR's snapshot agent (the discovery namespace's runner): the Pod
	// of AICR's privileged agent (agentPod) with AICR_AGENT_MODE=true and NODE_NAME from the
	// downward API, placed by the JobSpec's Placement (docs/design/aicr-jobs.md).
	Agent bool
	// Pod are the pod settings of every Job (chart values jobs.*).
	Pod PodSettings
	// Env is the environment of the AICR container of every Job (the validation runner's
	// check image registry and tag).
	Env map[string]string
	// Sealer seals kept results with the operator's key; Kept trusts only what it sealed.
	Sealer ports.Sealer
}

// PodSettings are what the installation sets on every Job's Pod: a deadline, the AICR
// container's resources, where it is scheduled and the Secrets its image is pulled with.
type PodSettings struct {
	// ActiveDeadlineSeconds is the Job's activeDeadlineSeconds (0: none).
	ActiveDeadlineSeconds int64
	// Resources are the AICR container's requests and limits.
	Resources corev1.ResourceRequirements
	// NodeSelector is the Pod's nodeSelector (chart value jobs.nodeSelector). When set it
	// takes the place of a JobSpec's Placement; when empty the Placement decides.
	NodeSelector map[string]string
	// Tolerations are the Pod's tolerations, kept beside a Placement's own.
	Tolerations []corev1.Toleration
	// ImagePullSecrets name Secrets in the Job namespace the image is pulled with.
	ImagePullSecrets []string
}

// Runner runs AICR commands as batch/v1 Jobs. It writes through Client and
// reads through Reader (the manager's uncached API reader, so a Job it just
// created is visible at once).
type Runner struct {
	cfg    Config
	client client.Client
	reader client.Reader
}

var _ ports.JobRunner = (*Runner)(nil)

// New returns a Runner; it refuses an image that is not pinned by digest.
func New(cfg Config, c client.Client, r client.Reader) (*Runner, error) {
	if !digestRef.MatchString(cfg.Image) {
		return nil, fmt.Errorf("%w: %q", ErrImageNotPinned, cfg.Image)
	}
	if cfg.CopierImage != "" && !digestRef.MatchString(cfg.CopierImage) {
		return nil, fmt.Errorf("%w: copier image %q", ErrImageNotPinned, cfg.CopierImage)
	}
	if cfg.Namespace == "" || cfg.OperatorNamespace == "" || cfg.Sealer == nil {
		return nil, errors.New("jobs: Namespace, OperatorNamespace and Sealer are required")
	}
	if cfg.ServiceAccount == "" {
		cfg.ServiceAccount = ServiceAccount
	}
	return &Runner{cfg: cfg, client: c, reader: r}, nil
}

// Image returns the pinned AICR image.
func (r *Runner) Image() string { return r.cfg.Image }

// OutputRef returns the cm:// destination AICR writes a Job's output to.
func (r *Runner) OutputRef(job string) string {
	return "cm://" + r.cfg.Namespace + "/" + OutputName(job)
}

// OutputName is the name of a Job's output ConfigMap.
func OutputName(job string) string { return job + "-output" }

// InputsName is the name of a Job's inputs ConfigMap.
func InputsName(job string) string { return job + "-inputs" }

// RegistryName is the name of a Job's registry credential Secret.
func RegistryName(job string) string { return job + "-registry" }

// Start creates the Job and its run-scoped objects unless the Job exists
// (idempotent by spec.Name). The spec's image must be the pinned image. A Job
// that is being deleted is reported as a transient error, so the caller
// retries once it is gone.
func (r *Runner) Start(ctx context.Context, spec ports.JobSpec) (ports.JobRef, error) {
	ref := ports.JobRef{Name: spec.Name}
	if spec.Image != "" && spec.Image != r.cfg.Image {
		return ref, fmt.Errorf("%w: job %s asks for %q, the runner pins %q", ErrImageNotPinned, spec.Name, spec.Image, r.cfg.Image)
	}
	if r.cfg.CopierImage == "" && imageRefsArgs(spec.Args) {
		return ref, fmt.Errorf("job %s pushes a bundle with --image-refs, and the runner has no copier image to hand its digest back", spec.Name)
	}
	job := &batchv1.Job{}
	err := r.reader.Get(ctx, client.ObjectKey{Namespace: r.cfg.Namespace, Name: spec.Name}, job)
	switch {
	case apierrors.IsNotFound(err):
		job = r.job(spec)
		if err = r.client.Create(ctx, job); err != nil && !apierrors.IsAlreadyExists(err) {
			return ref, fmt.Errorf("create job %s: %w", spec.Name, err)
		}
		if apierrors.IsAlreadyExists(err) {
			if err = r.reader.Get(ctx, client.ObjectKeyFromObject(job), job); err != nil {
				return ref, fmt.Errorf("get job %s: %w", spec.Name, err)
			}
		}
	case err != nil:
		return ref, fmt.Errorf("get job %s: %w", spec.Name, err)
	}
	if job.DeletionTimestamp != nil {
		return ref, fmt.Errorf("job %s is being deleted", spec.Name)
	}
	if err = r.ensureRunObjects(ctx, job, spec); err != nil {
		return ref, err
	}
	return ref, r.resume(ctx, job)
}

// resume unsuspends a Job once its run-scoped objects exist: Jobs are created
// suspended, so no Pod starts before its inputs and output ConfigMap are in
// place (and never with a stale one left by an earlier Job of the name).
func (r *Runner) resume(ctx context.Context, job *batchv1.Job) error {
	if job.Spec.Suspend == nil || !*job.Spec.Suspend {
		return nil
	}
	patch := client.MergeFrom(job.DeepCopy())
	job.Spec.Suspend = ptr.To(false)
	if err := r.client.Patch(ctx, job, patch); err != nil {
		return fmt.Errorf("resume job %s: %w", job.Name, err)
	}
	return nil
}

// ensureRunObjects creates the output and inputs ConfigMaps and the credential
// Secret, each owned by the Job; existing ones are left alone.
func (r *Runner) ensureRunObjects(ctx context.Context, job *batchv1.Job, spec ports.JobSpec) error {
	data, bin := splitInputs(spec.Inputs)
	objs := []client.Object{
		&corev1.ConfigMap{ObjectMeta: r.runMeta(job, OutputName(job.Name), spec)},
		&corev1.ConfigMap{ObjectMeta: r.runMeta(job, InputsName(job.Name), spec), Data: data, BinaryData: bin},
	}
	if len(spec.Credentials) > 0 {
		objs = append(objs, &corev1.Secret{
			ObjectMeta: r.runMeta(job, RegistryName(job.Name), spec),
			Type:       corev1.SecretTypeDockerConfigJson,
			Data:       map[string][]byte{corev1.DockerConfigJsonKey: spec.Credentials},
		})
	}
	for _, o := range objs {
		if err := r.ensureOwned(ctx, job, o); err != nil {
			return fmt.Errorf("create %s of job %s: %w", o.GetName(), job.Name, err)
		}
	}
	return nil
}

// ensureOwned creates o; an existing object owned by an earlier Job of the
// same name (not garbage-collected yet) is deleted and created again, so a
// Job never reads another run's output or inputs.
func (r *Runner) ensureOwned(ctx context.Context, job *batchv1.Job, o client.Object) error {
	err := r.client.Create(ctx, o.DeepCopyObject().(client.Object))
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	existing := o.DeepCopyObject().(client.Object)
	if err = r.reader.Get(ctx, client.ObjectKeyFromObject(o), existing); err != nil {
		return err
	}
	if owner := metav1.GetControllerOf(existing); owner != nil && owner.UID == job.UID {
		return nil
	}
	uid := existing.GetUID()
	if err = r.client.Delete(ctx, existing, client.Preconditions{UID: &uid}); client.IgnoreNotFound(err) != nil {
		return err
	}
	return r.client.Create(ctx, o.DeepCopyObject().(client.Object))
}

func (r *Runner) runMeta(job *batchv1.Job, name string, spec ports.JobSpec) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name: name, Namespace: job.Namespace, Labels: labels(spec), Annotations: annotations(spec),
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))},
	}
}

func labels(spec ports.JobSpec) map[string]string {
	return map[string]string{
		wellknown.LabelManagedBy:  wellknown.ManagedByValue,
		wellknown.LabelRuntimeUID: spec.Owner.RuntimeUID,
		KindLabel:                 string(spec.Kind),
	}
}

func annotations(spec ports.JobSpec) map[string]string {
	a := map[string]string{wellknown.AnnotationRuntimeUID: spec.Owner.RuntimeUID}
	if spec.Owner.PlanDigest != "" {
		a[wellknown.AnnotationPlanDigest] = spec.Owner.PlanDigest
	}
	return a
}
