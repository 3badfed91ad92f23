package faults_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"syscall"

	"k8s.io/client-go/rest"
)

// A write is one write request an operator process sent, as the transport saw it.
type write struct {
	// proc names the operator process.
	proc string
	// verb is create, update, patch, delete or deletecollection.
	verb string
	// resource is the plural resource, "/status" appended for the status subresource.
	resource  string
	namespace string
	name      string
	// code is the API server's answer; 0 when no answer came (lost or faulted before sending).
	code int
	// faulted says the transport injected a fault into this request.
	faulted bool
}

// key names the object a write is about.
func (w write) key() string { return w.resource + " " + w.namespace + "/" + w.name }

// faultKind is what the transport does to a matching request.
type faultKind string

const (
	// lostResponse forwards the request and drops the answer, as a connection reset after the
	// API server committed the write would.
	lostResponse faultKind = "lost response"
	// serverError answers 500 without forwarding.
	serverError faultKind = "500"
	// unavailable answers 503 without forwarding.
	unavailable faultKind = "503"
	// throttled answers 429 with Retry-After without forwarding.
	throttled faultKind = "429"
)

// rule injects fault into the first times requests of verb on resource (with "/status" for the
// status subresource) whose object name match accepts (nil: every name).
type rule struct {
	// proc limits the rule to one operator process ("": any).
	proc           string
	verb, resource string
	// namespace limits the rule to one namespace ("": any).
	namespace string
	match     func(name string) bool
	fault     faultKind
	times     int
}

// hook runs once, after the first successful request of verb on resource whose name match
// accepts has been answered (kill-at-boundary cases stop the operator there).
type hook struct {
	verb, resource string
	// namespace limits the hook to one namespace ("": any).
	namespace string
	match     func(name string) bool
	run       func(write)
	done      bool
}

// faults is the fault-injecting transport shared by the operator processes of one test: it
// records every write (events excepted) of each process, injects the rules' faults and runs
// the hooks.
type faults struct {
	mu     sync.Mutex
	writes []write
	rules  []*rule
	hooks  []*hook
	fired  map[*rule]int
	// expiries end watches with 410 Gone (watch_expiry_test.go).
	expiries []*expiry
}

func newFaults() *faults { return &faults{fired: map[*rule]int{}} }

// config returns the administrator's config whose requests pass through the transport as proc.
func (f *faults) config(proc string) *rest.Config {
	cfg := rest.CopyConfig(controlPlane.Config)
	cfg.QPS, cfg.Burst = 1000, 2000
	// JSON, not protobuf, so the transport reads the name a create sends.
	cfg.ContentType = "application/json"
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return &faultTransport{f: f, proc: proc, next: rt} }
	return cfg
}

// inject adds a rule.
func (f *faults) inject(r *rule) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rules = append(f.rules, r)
}

// onWrite adds a hook.
func (f *faults) onWrite(h *hook) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hooks = append(f.hooks, h)
}

// firedCount is how often r injected its fault.
func (f *faults) firedCount(r *rule) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fired[r]
}

// recorded returns a copy of the writes so far.
func (f *faults) recorded() []write {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]write(nil), f.writes...)
}

// pick returns the fault for w, if a rule has one left, and counts it.
func (f *faults) pick(w write) (faultKind, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.rules {
		if selects(w, r.proc, r.verb, r.resource, r.namespace, r.match) && f.fired[r] < r.times {
			f.fired[r]++
			return r.fault, true
		}
	}
	return "", false
}

// selects reports whether w is a write of proc ("": any) with verb on resource in namespace
// ("": any) whose name match accepts (nil: any).
func selects(w write, proc, verb, resource, namespace string, match func(string) bool) bool {
	return (proc == "" || proc == w.proc) && verb == w.verb && resource == w.resource &&
		(namespace == "" || namespace == w.namespace) && (match == nil || match(w.name))
}

// record appends w and returns the hooks it triggers.
func (f *faults) record(w write) []*hook {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes = append(f.writes, w)
	var run []*hook
	if w.faulted || w.code < 200 || w.code > 299 {
		return nil
	}
	for _, h := range f.hooks {
		if !h.done && selects(w, "", h.verb, h.resource, h.namespace, h.match) {
			h.done = true
			run = append(run, h)
		}
	}
	return run
}

// faultTransport is one process's transport.
type faultTransport struct {
	f    *faults
	proc string
	next http.RoundTripper
}

// errConnectionLost is what the client sees of a lost answer.
var errConnectionLost = fmt.Errorf("injected: read tcp: %w", syscall.ECONNRESET)

func (t *faultTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if e := t.f.expiryOf(req); e != nil {
		resp, err := t.next.RoundTrip(req)
		if err == nil && resp.StatusCode == http.StatusOK {
			resp.Body = &expiring{f: t.f, e: e, events: json.NewDecoder(resp.Body), body: resp.Body,
				synced: req.URL.Query().Get("sendInitialEvents") != "true"}
		}
		return resp, err
	}
	w, ok := parseWrite(req)
	if !ok || w.resource == "events" {
		return t.next.RoundTrip(req)
	}
	w.proc = t.proc
	if w.verb == "create" {
		name, err := createdName(req)
		if err != nil {
			return nil, err
		}
		w.name = name
	}
	kind, fault := t.f.pick(w)
	w.faulted = fault
	var resp *http.Response
	var err error
	switch {
	case fault && kind == lostResponse:
		if resp, err = t.next.RoundTrip(req); err == nil {
			w.code = resp.StatusCode
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			resp, err = nil, errConnectionLost
		}
	case fault:
		resp = injectedAnswer(req, kind)
		w.code = resp.StatusCode
	default:
		if resp, err = t.next.RoundTrip(req); err == nil {
			w.code = resp.StatusCode
		}
	}
	for _, h := range t.f.record(w) {
		h.run(w)
	}
	return resp, err
}

// injectedAnswer is the API server's Status answer of an injected 500, 503 or 429.
func injectedAnswer(req *http.Request, kind faultKind) *http.Response {
	code, reason := http.StatusInternalServerError, "InternalError"
	header := http.Header{"Content-Type": []string{"application/json"}}
	switch kind {
	case unavailable:
		code, reason = http.StatusServiceUnavailable, "ServiceUnavailable"
	case throttled:
		code, reason = http.StatusTooManyRequests, "TooManyRequests"
		header.Set("Retry-After", "0")
	case serverError, lostResponse:
	}
	body := fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"injected %d","reason":%q,"code":%d}`,
		code, reason, code)
	return &http.Response{StatusCode: code, Status: fmt.Sprintf("%d %s", code, http.StatusText(code)), Header: header,
		Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)), Request: req,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}
}

// parseWrite reads verb, resource, namespace and name of a write from its request; false for
// reads and for requests that are not about a resource.
func parseWrite(req *http.Request) (write, bool) {
	verbs := map[string]string{http.MethodPost: "create", http.MethodPut: "update", http.MethodPatch: "patch", http.MethodDelete: "delete"}
	verb, ok := verbs[req.Method]
	if !ok {
		return write{}, false
	}
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return write{}, false
	}
	w := write{verb: verb}
	if len(parts) >= 2 && parts[0] == "namespaces" && len(parts) > 2 {
		w.namespace, parts = parts[1], parts[2:]
	}
	w.resource = parts[0]
	if len(parts) > 1 {
		w.name = parts[1]
	}
	if len(parts) > 2 {
		w.resource += "/" + parts[2]
	}
	if verb == "delete" && w.name == "" {
		w.verb = "deletecollection"
	}
	return w, true
}

// createdName reads the name of the object a create sends, leaving the body readable.
func createdName(req *http.Request) (string, error) {
	if req.Body == nil {
		return "", nil
	}
	raw, err := io.ReadAll(req.Body)
	if err != nil {
		return "", err
	}
	_ = req.Body.Close()
	req.Body = io.NopCloser(bytes.NewReader(raw))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(raw)), nil }
	var obj struct {
		Metadata struct {
			Name         string `json:"name"`
			GenerateName string `json:"generateName"`
		} `json:"metadata"`
	}
	if json.Unmarshal(raw, &obj) != nil {
		return "", nil
	}
	if obj.Metadata.Name == "" {
		return obj.Metadata.GenerateName + "*", nil
	}
	return obj.Metadata.Name, nil
}
