//go:build handover

package main

import (
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/NVIDIA/aicr/test/e2e/cluster"
)

// replica is one operator replica: the real binary with the chart's flags, authenticating as
// its own user that acts as the operator's ServiceAccount, so RBAC and the admission policies
// see the operator while the audit log names the replica (the authenticated user).
type replica struct {
	h    *handoverCluster
	user string
	kc   string
	proc *cluster.Process
	// starts counts the processes started for the replica; the second is a restart, as the
	// kubelet restarts an operator container that exited.
	starts int
}

// addReplica provisions user and starts a replica running as it.
func (h *handoverCluster) addReplica(user string) *replica {
	raw, err := h.cp.KubeConfig(user, "system:masters")
	require.NoError(h.t, err)
	cfg, err := clientcmd.Load(raw)
	require.NoError(h.t, err)
	for _, auth := range cfg.AuthInfos {
		auth.Impersonate = operatorUser
		auth.ImpersonateGroups = []string{"system:serviceaccounts", "system:serviceaccounts:" + operatorNamespace}
	}
	r := &replica{h: h, user: user, kc: filepath.Join(h.workdir, user+".kubeconfig")}
	require.NoError(h.t, clientcmd.WriteToFile(*cfg, r.kc))
	r.start()
	h.replicas = append(h.replicas, r)
	h.t.Cleanup(func() { r.proc.Stop() })
	return r
}

// start starts a new operator process of the replica, logging to <user>-<n>.log.
func (r *replica) start() {
	r.starts++
	p, err := start(r.h.workdir, r.user+"-"+strconv.Itoa(r.starts), r.kc, r.h.reg.CAFile, r.h.bin, r.h.args...)
	require.NoError(r.h.t, err)
	r.proc = p
}

// signal sends sig to the replica's process.
func (r *replica) signal(sig syscall.Signal) {
	require.NoError(r.h.t, syscall.Kill(r.proc.Pid(), sig))
}

// exited reports whether the replica's process ended without being asked to.
func (r *replica) exited() bool { return r.proc.Exited() != nil }

// restartExited starts a new process for each replica whose process ended, as the kubelet
// restarts an exited container, and reports which it restarted.
func (h *handoverCluster) restartExited() []string {
	var restarted []string
	for _, r := range h.replicas {
		if r.exited() {
			r.start()
			restarted = append(restarted, r.user)
		}
	}
	return restarted
}
