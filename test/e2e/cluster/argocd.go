package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// startArgoCD creates what Argo CD's install manifests put in its namespace that the
// application controller reads (argocd-cm, argocd-rbac-cm, argocd-secret, the default
// AppProject), then starts Redis, the repo server and the application controller. The
// controller reaches the in-cluster destination through the admin kubeconfig
// (ARGOCD_FAKE_IN_CLUSTER, as Argo CD's own local development does).
func (cl *Cluster) startArgoCD(ctx context.Context, caFile string) error {
	if err := cl.argoCDObjects(ctx); err != nil {
		return err
	}
	ports := map[string]string{}
	for _, p := range []string{"redis", "repo", "repo-metrics", "controller-metrics"} {
		port, err := freePort()
		if err != nil {
			return err
		}
		ports[p] = "127.0.0.1:" + port
	}
	if err := cl.start("redis", nil, "redis", ports["redis"]); err != nil {
		return err
	}
	if err := cl.listening(ctx, ports["redis"]); err != nil {
		return fmt.Errorf("redis: %w", err)
	}
	home := filepath.Join(cl.workdir, "argocd-home")
	for _, dir := range []string{"tls", "ssh"} {
		if err := os.MkdirAll(filepath.Join(home, dir), 0o700); err != nil {
			return err
		}
	}
	// Outside a container Argo CD's /app/config does not exist: its TLS and SSH data live in
	// the home directory, and GnuPG verification (no gpg binary here) is off.
	env := []string{
		"KUBECONFIG=" + cl.AdminKubeconfig, "ARGOCD_FAKE_IN_CLUSTER=true", "HOME=" + home,
		"PATH=" + cl.bins + string(os.PathListSeparator) + os.Getenv("PATH"),
		"ARGOCD_GPG_ENABLED=false", "ARGOCD_TLS_DATA_PATH=" + filepath.Join(home, "tls"),
		"ARGOCD_SSH_DATA_PATH=" + filepath.Join(home, "ssh"),
	}
	if caFile != "" {
		env = append(env, "SSL_CERT_FILE="+caFile)
	}
	repoPort, metricsPort := portOf(ports["repo"]), portOf(ports["repo-metrics"])
	if err := cl.start("argocd-repo-server", append(env, "ARGOCD_BINARY_NAME=argocd-repo-server"), "argocd",
		"--port="+repoPort, "--address=127.0.0.1", "--metrics-port="+metricsPort, "--metrics-address=127.0.0.1",
		// Plaintext gRPC: Argo CD 3.5 refuses it while the mTLS client CA flag keeps its default.
		"--redis="+ports["redis"], "--disable-tls", "--client-ca-path=", "--logformat=text"); err != nil {
		return err
	}
	if err := cl.listening(ctx, ports["repo"]); err != nil {
		return fmt.Errorf("argocd-repo-server: %w", err)
	}
	if err := cl.start("argocd-application-controller", append(env, "ARGOCD_BINARY_NAME=argocd-application-controller"), "argocd",
		"--kubeconfig="+cl.AdminKubeconfig, "--namespace="+cl.ArgoCDNamespace, "--repo-server="+ports["repo"],
		"--repo-server-plaintext", "--redis="+ports["redis"], "--metrics-port="+portOf(ports["controller-metrics"]),
		"--app-resync=30", "--status-processors=10", "--operation-processors=10", "--logformat=text"); err != nil {
		return err
	}
	return cl.listening(ctx, ports["controller-metrics"])
}

// installArgoCDCRDs creates, or updates to the running release's, Argo CD's Application and
// AppProject CRDs, and waits until the API server serves them.
func (cl *Cluster) installArgoCDCRDs() error {
	if _, err := envtest.InstallCRDs(cl.Env.Config, envtest.CRDInstallOptions{
		Paths: []string{filepath.Join(cl.bins, argoCDCRDDir)}, ErrorIfPathMissing: true,
	}); err != nil {
		return fmt.Errorf("install Argo CD %s's CRDs: %w", ArgoCDVersion, err)
	}
	return nil
}

func portOf(addr string) string { return addr[len("127.0.0.1:"):] }

// argoCDObjects creates Argo CD's namespace, settings and default AppProject.
func (cl *Cluster) argoCDObjects(ctx context.Context) error {
	ns := cl.ArgoCDNamespace
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return err
	}
	part := map[string]string{"app.kubernetes.io/part-of": "argocd"}
	project := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "AppProject",
		"metadata": map[string]any{"name": "default", "namespace": ns},
		"spec": map[string]any{
			"sourceRepos":              []any{"*"},
			"destinations":             []any{map[string]any{"server": "*", "namespace": "*"}},
			"clusterResourceWhitelist": []any{map[string]any{"group": "*", "kind": "*"}},
		},
	}}
	for _, obj := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "argocd-cm", Namespace: ns, Labels: part}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "argocd-rbac-cm", Namespace: ns, Labels: part}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "argocd-secret", Namespace: ns, Labels: part},
			Data: map[string][]byte{"server.secretkey": []byte(hex.EncodeToString(key))}},
		project,
	} {
		// The namespace may exist already (the operator's chart creates its engine namespace).
		if err := cl.Admin.Create(ctx, obj); client.IgnoreAlreadyExists(err) != nil {
			return fmt.Errorf("create %s %s: %w", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), err)
		}
	}
	return nil
}

// Bins is the directory of the environment's binaries (helm among them).
func (cl *Cluster) Bins() string { return cl.bins }

// SetArgoCDSetting sets one key of argocd-cm, which Argo CD's controllers reload.
func (cl *Cluster) SetArgoCDSetting(ctx context.Context, key, value string) error {
	cm := &corev1.ConfigMap{}
	if err := cl.Admin.Get(ctx, client.ObjectKey{Namespace: cl.ArgoCDNamespace, Name: "argocd-cm"}, cm); err != nil {
		return err
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data[key] = value
	return cl.Admin.Update(ctx, cm)
}
