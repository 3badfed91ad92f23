package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
)

// ErrDeadline is returned when the API server does not answer within the command's deadline.
var ErrDeadline = errors.New("deadline exceeded")

var (
	rolloutGVR = aicrv1alpha1.GroupVersion.WithResource("runtimerollouts")
	runtimeGVR = aicrv1alpha1.GroupVersion.WithResource("clusterruntimes")
)

// Clients are the API clients of one command and the server they talk to.
type Clients struct {
	// Dynamic reads and patches RuntimeRollouts and the ClusterRuntime.
	Dynamic dynamic.Interface
	// Kube reads ConfigMaps and asks who the caller is.
	Kube kubernetes.Interface
	// Host names the API server in messages.
	Host string
	// Config is the REST config the clients were built from, for Options.Engine.
	Config *rest.Config
}

// clients builds the clients from the kubectl flags, unless Options.Clients replaces them.
func (o *Options) clients() (Clients, error) {
	if o.Clients != nil {
		return o.Clients()
	}
	cfg, err := o.ConfigFlags.ToRESTConfig()
	if err != nil {
		return Clients{}, fmt.Errorf("load kubeconfig: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return Clients{}, fmt.Errorf("build client: %w", err)
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return Clients{}, fmt.Errorf("build client: %w", err)
	}
	return Clients{Dynamic: dyn, Kube: kube, Host: cfg.Host, Config: cfg}, nil
}

// session is one command's connection to the API server: its clients and its deadline.
type session struct {
	ctx context.Context
	// parent is the command's context without the deadline: status -w follows a rollout
	// beyond --request-timeout.
	parent context.Context
	host   string
	o      *Options
	dyn    dynamic.Interface
	core   kubernetes.Interface
	// config is the REST config of the clients, for Options.Engine.
	config *rest.Config
	// user is who the API server said the caller is, once asked.
	user string
}

// connect builds the clients from the kubectl flags and starts the command's deadline; every
// API call of the command runs under the returned session's context. Call the cancel func.
func (o *Options) connect(parent context.Context) (*session, context.CancelFunc, error) {
	c, err := o.clients()
	if err != nil {
		return nil, nil, err
	}
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := o.withDeadline(parent)
	return &session{ctx: ctx, parent: parent, host: c.Host, o: o, dyn: c.Dynamic, core: c.Kube, config: c.Config},
		cancel, nil
}

// check turns an error of an API call into the error the user sees: a deadline names the
// server and the deadline, anything else is wrapped with what was being done.
func (s *session) check(doing string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(s.ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s: the API server at %s did not answer within %s: %w", doing, s.host, s.o.Timeout, ErrDeadline)
	}
	return fmt.Errorf("%s: %w", doing, err)
}

// rollout reads a RuntimeRollout.
func (s *session) rollout(name string) (*aicrv1alpha1.RuntimeRollout, error) {
	u, err := s.dyn.Resource(rolloutGVR).Get(s.ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, s.check("get rollout "+name, err)
	}
	ro := &aicrv1alpha1.RuntimeRollout{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, ro); err != nil {
		return nil, fmt.Errorf("decode rollout %s: %w", name, err)
	}
	return ro, nil
}

// clusterRuntime reads the ClusterRuntime.
func (s *session) clusterRuntime() (*aicrv1alpha1.ClusterRuntime, error) {
	u, err := s.dyn.Resource(runtimeGVR).Get(s.ctx, "cluster", metav1.GetOptions{})
	if err != nil {
		return nil, s.check("get clusterruntime cluster", err)
	}
	cr := &aicrv1alpha1.ClusterRuntime{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, cr); err != nil {
		return nil, fmt.Errorf("decode clusterruntime cluster: %w", err)
	}
	return cr, nil
}

// configMap reads a ConfigMap of the operator namespace.
func (s *session) configMap(name string) (*corev1.ConfigMap, error) {
	cm, err := s.core.CoreV1().ConfigMaps(s.o.namespace()).Get(s.ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, s.check(fmt.Sprintf("get configmap %s/%s", s.o.namespace(), name), err)
	}
	return cm, nil
}

// whoami asks the API server who the caller is (a SelfSubjectReview, as kubectl auth whoami),
// once per command.
func (s *session) whoami() (string, error) {
	if s.user != "" {
		return s.user, nil
	}
	r, err := s.core.AuthenticationV1().SelfSubjectReviews().
		Create(s.ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return "", s.check("ask the API server who you are (SelfSubjectReview)", err)
	}
	if r.Status.UserInfo.Username == "" {
		return "", errors.New("the API server reported no username for you")
	}
	s.user = r.Status.UserInfo.Username
	return s.user, nil
}

// decidedAgain ends the help of every command that changes spec.approval (changeApproval).
const decidedAgain = "The decision is made on the rollout as read; if it changed before the write, it is read and decided again."

// changeApproval reads the rollout, lets decide refuse it or build the new spec.approval from
// it, and patches it conditional on what was read. When the rollout changed in between (the
// operator wrote its status, or someone else decided first), it reads the rollout again and
// decides again on what it now says, within the command's deadline, as client-go's
// retry.RetryOnConflict does with retry.DefaultRetry (five attempts, 10 ms apart). It returns
// the rollout the successful decision was made on.
func (s *session) changeApproval(name, doing string,
	decide func(*aicrv1alpha1.RuntimeRollout) (map[string]any, error),
) (*aicrv1alpha1.RuntimeRollout, error) {
	var decided *aicrv1alpha1.RuntimeRollout
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		ro, err := s.rollout(name)
		if err != nil {
			return err
		}
		approval, err := decide(ro)
		if err != nil {
			return err
		}
		if err = s.patchApproval(ro, approval, doing+" "+name); err != nil {
			return err
		}
		decided = ro
		return nil
	})
	if err != nil {
		return nil, err
	}
	return decided, nil
}

// patchApproval sends a JSON merge patch that changes only spec.approval, conditional on the
// resourceVersion the decision was made on.
func (s *session) patchApproval(ro *aicrv1alpha1.RuntimeRollout, approval map[string]any, doing string) error {
	body := map[string]any{
		"metadata": map[string]any{"resourceVersion": ro.ResourceVersion},
		"spec":     map[string]any{"approval": approval},
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("encode patch: %w", err)
	}
	_, err = s.dyn.Resource(rolloutGVR).Patch(s.ctx, ro.Name, types.MergePatchType, raw, metav1.PatchOptions{})
	return s.check(doing, err)
}
