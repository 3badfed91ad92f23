package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/test/env"
)

// Options selects what the environment starts with.
type Options struct {
	// WorkDir holds the kubeconfigs and every process's log; it must exist.
	WorkDir string
	// Env is passed to the control plane (CRDs installed before Start returns).
	Env env.Options
	// ArgoCDNamespace is where Argo CD's controllers run and read Applications ("argocd" when empty).
	ArgoCDNamespace string
	// CAFile is a PEM bundle the repo server trusts (the test registry's certificate); optional.
	CAFile string
	// Nodes are registered before Start returns, and kwok keeps them Ready.
	Nodes []*corev1.Node
}

// Cluster is a running environment.
type Cluster struct {
	// Env is the control plane; Env.Config authenticates as a cluster administrator.
	Env *env.Env
	// Admin is a client of the control plane as a cluster administrator (client-go's scheme).
	Admin client.Client
	// AdminKubeconfig is the path of a system:masters kubeconfig.
	AdminKubeconfig string
	// ArgoCDNamespace is where Argo CD's controllers run.
	ArgoCDNamespace string
	workdir         string
	bins            string
	procs           []*Process
	ownsEnv         bool
}

// Start starts the control plane, then everything Attach starts. On error everything started
// is stopped.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	cp, err := env.Start(opts.Env)
	if err != nil {
		return nil, err
	}
	cl, err := Attach(ctx, cp, opts)
	if err != nil {
		return nil, errors.Join(err, cp.Stop())
	}
	cl.ownsEnv = true
	return cl, nil
}

// Attach starts the Kubernetes controllers, kwok and Argo CD against a running control plane
// and returns once the nodes are Ready and Argo CD's servers listen. On error every process it
// started is stopped; the control plane is left to its owner.
func Attach(ctx context.Context, cp *env.Env, opts Options) (cl *Cluster, err error) {
	bins, err := BinDir()
	if err != nil {
		return nil, err
	}
	cl = &Cluster{Env: cp, workdir: opts.WorkDir, bins: bins, ArgoCDNamespace: opts.ArgoCDNamespace}
	if cl.ArgoCDNamespace == "" {
		cl.ArgoCDNamespace = "argocd"
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, cl.Stop())
			cl = nil
		}
	}()
	if cl.Admin, err = client.New(cp.Config, client.Options{}); err != nil {
		return cl, err
	}
	if cl.AdminKubeconfig, err = cl.kubeconfig("e2e-admin", "system:masters"); err != nil {
		return cl, err
	}
	if err = cl.installStages(ctx); err != nil {
		return cl, err
	}
	if err = cl.startKubernetes(); err != nil {
		return cl, err
	}
	if err = registerNodes(ctx, cl.Admin, opts.Nodes); err != nil {
		return cl, err
	}
	if err = cl.installArgoCDCRDs(); err != nil {
		return cl, err
	}
	if err = cl.startArgoCD(ctx, opts.CAFile); err != nil {
		return cl, err
	}
	return cl, nil
}

// startKubernetes starts kube-controller-manager, kube-scheduler and kwok. The controller
// manager and the scheduler authenticate as the users a cluster gives them, and each controller
// acts as its own ServiceAccount (--use-service-account-credentials), so admission policies see
// the identities they would see in a real cluster. The Job controller stays off: the simulated
// kubelet (test/jobexec) is the Job controller of the AICR Jobs, which no container can run here.
func (cl *Cluster) startKubernetes() error {
	kcm, err := cl.kubeconfig("system:kube-controller-manager")
	if err != nil {
		return err
	}
	scheduler, err := cl.kubeconfig("system:kube-scheduler")
	if err != nil {
		return err
	}
	kwokPort, err := freePort()
	if err != nil {
		return err
	}
	for _, p := range []struct {
		name string
		args []string
	}{
		{"kube-controller-manager", []string{"--kubeconfig=" + kcm, "--leader-elect=false", "--secure-port=0",
			"--controllers=*,-job-controller", "--use-service-account-credentials=true",
			"--concurrent-deployment-syncs=10", "--concurrent-replicaset-syncs=10", "--concurrent-daemonset-syncs=10"}},
		{"kube-scheduler", []string{"--kubeconfig=" + scheduler, "--leader-elect=false", "--secure-port=0"}},
		{"kwok", []string{"--kubeconfig=" + cl.AdminKubeconfig, "--manage-all-nodes=true",
			"--enable-crds=Stage", "--server-address=127.0.0.1:" + kwokPort,
			"--cidr=10.244.0.1/16", "--node-ip=127.0.0.1"}},
	} {
		if err := cl.start(p.name, nil, p.name, p.args...); err != nil {
			return err
		}
	}
	return nil
}

// kubeconfig writes a kubeconfig for user with groups into the work directory.
func (cl *Cluster) kubeconfig(user string, groups ...string) (string, error) {
	path := filepath.Join(cl.workdir, strings.ReplaceAll(user, ":", "-")+".kubeconfig")
	return path, cl.Env.WriteKubeConfig(path, user, groups...)
}

// start runs one of the cache's binaries as a process of the environment.
func (cl *Cluster) start(name string, env []string, bin string, args ...string) error {
	p, err := StartProcess(cl.workdir, name, env, filepath.Join(cl.bins, bin), args...)
	if err != nil {
		return err
	}
	cl.procs = append(cl.procs, p)
	return nil
}

// registerNodes creates the nodes and waits until kwok reports them Ready.
func registerNodes(ctx context.Context, c client.Client, nodes []*corev1.Node) error {
	for _, n := range nodes {
		if err := c.Create(ctx, n.DeepCopy()); err != nil {
			return fmt.Errorf("register node %s: %w", n.Name, err)
		}
	}
	return wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		for _, n := range nodes {
			got := &corev1.Node{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(n), got); err != nil {
				return false, err
			}
			if !nodeReady(got) {
				return false, nil
			}
		}
		return true, nil
	})
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// Exited reports an error when a process of the environment ended on its own.
func (cl *Cluster) Exited() error {
	var errs []error
	for _, p := range cl.procs {
		errs = append(errs, p.Exited())
	}
	return errors.Join(errs...)
}

// Stop stops every process, then the control plane if Start started it.
func (cl *Cluster) Stop() error {
	for i := len(cl.procs) - 1; i >= 0; i-- {
		cl.procs[i].Stop()
	}
	cl.procs = nil
	if !cl.ownsEnv {
		return nil
	}
	return cl.Env.Stop()
}

// listening waits until something accepts connections on addr, failing as soon as a process
// of the environment exited.
func (cl *Cluster) listening(ctx context.Context, addr string) error {
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		if err != nil {
			return false, cl.Exited()
		}
		_ = conn.Close()
		return true, nil
	})
}
