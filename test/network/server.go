// Package network is the network a test cluster reaches, as this machine has no internet: one
// HTTPS server on loopback that is the runtime OCI registry (/v2/) and serves every upstream Helm
// repository an AICR render names (/upstream/<host>/<path>/index.yaml and stand-in chart
// archives, each announced with its digest as a real repository index does). It does not model
// a registry's or repository's authentication or rate limits; its outage switch (Hang, Answer)
// plays a host that accepts connections but never answers.
package network

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/google/go-containerregistry/pkg/registry"
	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/adapters/aicr"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// upstreamPrefix is the path under which the server serves the upstream Helm repositories.
const upstreamPrefix = "/upstream/"

// Server is the runtime registry and the upstream Helm repositories on one HTTPS server.
type Server struct {
	srv *httptest.Server
	// CAFile is the server's certificate in PEM, for SSL_CERT_FILE.
	CAFile string
	mu     sync.Mutex
	files  map[string][]byte
	gate   gate
}

// Start serves the runtime registry and the upstream repositories of the fixture bundles (paths
// under test/testdata/aicr), writing the server's certificate to <workdir>/demo-ca.pem.
func Start(workdir string, bundles ...string) (*Server, error) {
	r := &Server{files: map[string][]byte{}}
	mux := http.NewServeMux()
	mux.Handle("/v2/", registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	mux.HandleFunc(upstreamPrefix, r.serveUpstream)
	r.srv = httptest.NewTLSServer(r.gate.hold(mux))
	r.CAFile = filepath.Join(workdir, "demo-ca.pem")
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: r.srv.Certificate().Raw})
	if err := os.WriteFile(r.CAFile, ca, 0o600); err != nil {
		r.srv.Close()
		return nil, err
	}
	for _, dir := range bundles {
		b, err := aicr.ReadDir(filepath.Join(jobexec.Root(), "test", "testdata", "aicr", dir))
		if err != nil {
			r.srv.Close()
			return nil, fmt.Errorf("read fixture %s: %w", dir, err)
		}
		if err = r.AddBundleCharts(b); err != nil {
			r.srv.Close()
			return nil, err
		}
	}
	return r, nil
}

// Host is the server's host:port.
func (r *Server) Host() string { return strings.TrimPrefix(r.srv.URL, "https://") }

// URL is the server's https:// base URL.
func (r *Server) URL() string { return r.srv.URL }

// Client is an HTTP client that trusts the server's certificate.
func (r *Server) Client() *http.Client { return r.srv.Client() }

// Close ends a hang and stops the server.
func (r *Server) Close() {
	r.Answer()
	r.srv.Close()
}

func (r *Server) serveUpstream(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	body, ok := r.files[req.URL.Path]
	r.mu.Unlock()
	if !ok {
		http.NotFound(w, req)
		return
	}
	_, _ = w.Write(body)
}

// AddBundleCharts serves a stand-in chart archive for every upstream release of bundle b.
func (r *Server) AddBundleCharts(b ports.Bundle) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rel := range b.Releases {
		if rel.Kind != ports.KindUpstream {
			continue
		}
		if err := r.addChart(rel.Chart, rel.Values); err != nil {
			return err
		}
	}
	return nil
}

// addChart adds one chart version to its repository's index.
func (r *Server) addChart(c ports.ChartSource, values map[string]any) error {
	repoPath := localRepositoryPath(c.Repository)
	archivePath := repoPath + "/" + c.Name + "-" + c.Version + ".tgz"
	if _, ok := r.files[archivePath]; ok {
		return nil // one archive per chart version, as a repository serves it
	}
	archive, err := chartArchive(c.Name, c.Version, values)
	if err != nil {
		return err
	}
	r.files[archivePath] = archive
	index := helmIndex{APIVersion: "v1", Entries: map[string][]helmIndexEntry{}}
	if raw, ok := r.files[repoPath+"/index.yaml"]; ok {
		if err = yaml.Unmarshal(raw, &index); err != nil {
			return err
		}
	}
	sum := sha256.Sum256(archive)
	index.Entries[c.Name] = append(index.Entries[c.Name], helmIndexEntry{
		Name: c.Name, Version: c.Version, URLs: []string{r.srv.URL + archivePath}, Digest: hex.EncodeToString(sum[:]),
	})
	raw, err := yaml.Marshal(index)
	if err != nil {
		return err
	}
	r.files[repoPath+"/index.yaml"] = raw
	return nil
}

// helmIndex is a Helm repository index.yaml.
type helmIndex struct {
	APIVersion string                      `json:"apiVersion"`
	Entries    map[string][]helmIndexEntry `json:"entries"`
}

// helmIndexEntry is one chart version of a Helm repository index.
type helmIndexEntry struct {
	Name    string   `json:"name"`
	Version string   `json:"version"`
	URLs    []string `json:"urls"`
	Digest  string   `json:"digest"`
}

// localRepositoryPath maps an upstream repository (https:// or oci://) to its path on the
// server: /upstream/<host>/<path>.
func localRepositoryPath(repository string) string {
	rest := repository
	for _, scheme := range []string{"https://", "oci://"} {
		rest = strings.TrimPrefix(rest, scheme)
	}
	return upstreamPrefix + strings.Trim(rest, "/")
}

// upstreamEnvLine is one KEY='value' line of a bundle's upstream.env.
var upstreamEnvLine = regexp.MustCompile(`^([A-Z]+)='?([^']*)'?$`)

// PointUpstreamAt rewrites every upstream.env of a rendered bundle so its chart comes from the
// server's copy of the repository (server + /upstream/<host>/<path>, a Helm repository
// also for oci:// charts); nothing else of the render changes.
func PointUpstreamAt(server string) func(map[string][]byte) {
	return func(files map[string][]byte) {
		for name, data := range files {
			if filepath.Base(name) != "upstream.env" {
				continue
			}
			env := map[string]string{}
			for _, line := range strings.Split(string(data), "\n") {
				if m := upstreamEnvLine.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
					env[m[1]] = m[2]
				}
			}
			chart, repo := env["CHART"], env["REPO"]
			if ref, ok := strings.CutPrefix(chart, "oci://"); ok {
				i := strings.LastIndex(ref, "/")
				repo, chart = "oci://"+ref[:i], ref[i+1:]
			}
			files[name] = fmt.Appendf(nil, "CHART='%s'\nREPO='%s%s'\nVERSION='%s'\n", chart, server, localRepositoryPath(repo), env["VERSION"])
		}
	}
}

// standInTemplate is the workload of every stand-in chart: a ConfigMap holding the values Helm
// computed (so a value the release removes is absent from the live object) and a Deployment
// whose pod template changes with them; it tolerates every taint, and no container runs it
// (kwok marks its pods Ready). A Deployment whose new pods do not become available within 15
// seconds reports ProgressDeadlineExceeded, which Argo CD reports as Degraded.
const standInTemplate = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-values
  labels:
    app.kubernetes.io/instance: {{ .Release.Name }}
    aicr.nvidia.com/test-chart: stand-in
data:
  values.json: {{ toJson .Values | quote }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
  labels:
    app.kubernetes.io/instance: {{ .Release.Name }}
    aicr.nvidia.com/test-chart: stand-in
spec:
  replicas: 1
  progressDeadlineSeconds: 15
  selector:
    matchLabels:
      app.kubernetes.io/instance: {{ .Release.Name }}
  template:
    metadata:
      labels:
        app.kubernetes.io/instance: {{ .Release.Name }}
      annotations:
        aicr.nvidia.com/values-sha256: {{ toJson .Values | sha256sum }}
    spec:
      tolerations:
        - operator: Exists
      containers:
        - name: stand-in
          image: registry.invalid/aicr-test-charts/{{ .Chart.Name }}:{{ .Chart.Version }}
`

// chartArchive packages a stand-in for an upstream chart, laid out as `helm package` does: a
// test chart (it says so in its description) with the upstream chart's name and version, the
// release's values keys as its defaults (a null there becomes a string default, so a release
// value of null visibly removes it), and standInTemplate as its workload.
func chartArchive(name, version string, values map[string]any) ([]byte, error) {
	chart := fmt.Appendf(nil, "apiVersion: v2\nname: %s\nversion: %s\ndescription: test chart standing in for the upstream chart (aicr demo and e2e)\n", name, version)
	defaults, err := yaml.Marshal(nullsAsDefaults(values))
	if err != nil {
		return nil, err
	}
	return jobexec.Tar(map[string][]byte{
		name + "/Chart.yaml": chart, name + "/values.yaml": defaults,
		name + "/templates/stand-in.yaml": []byte(standInTemplate),
	})
}

// StandInDefault is a stand-in chart's default where the release's values hold a null.
const StandInDefault = "stand-in default"

// nullsAsDefaults copies values with every null replaced by standInDefault.
func nullsAsDefaults(values map[string]any) map[string]any {
	out := make(map[string]any, len(values))
	for k, v := range values {
		switch v := v.(type) {
		case nil:
			out[k] = StandInDefault
		case map[string]any:
			out[k] = nullsAsDefaults(v)
		default:
			out[k] = v
		}
	}
	return out
}
