// Package cluster runs the end-to-end environment on loopback, built only from the
// Go module proxy (`make e2e-tools`, test/tools/e2e-bins.sh): etcd and kube-apiserver (test/env),
// kube-controller-manager and kube-scheduler so Deployments, DaemonSets and Jobs get Pods, kwok
// for Nodes and Pods without a kubelet, and Argo CD's own application controller and repo server
// with a miniredis server for their cache. Every process logs to a file of the work directory
// and is stopped by Stop.
//
// What it does not model: no container runs (kwok marks Pods Ready from its stages, so a chart's
// workload is healthy once scheduled, and Cluster.FailPods makes the Pods a selector matches
// crash-loop instead), no Services route traffic, and
// Argo CD's API server, UI, ApplicationSet and notification controllers are not started.
package cluster
