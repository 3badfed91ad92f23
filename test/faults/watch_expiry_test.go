package faults_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// expiry ends the first times watches of resource an operator process opens, once they are in
// sync (past the initial events a watch-list stream sends first), at their next event, which it
// replaces with the ERROR event of a 410 Gone Status ("too old resource version"), as the API
// server does when a watch fell behind what etcd kept: the event is lost to the watch, and only
// a relist finds it.
type expiry struct {
	resource string
	times    int
	// fired counts the watches ended; lists counts the lists of resource, a watch-list stream
	// (sendInitialEvents) included.
	fired, lists int
}

// expiredEvent is the watch event of a 410 Gone Status.
const expiredEvent = `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",` +
	`"message":"too old resource version: 1 (2)","reason":"Expired","code":410}}` + "\n"

// expire adds an expiry.
func (f *faults) expire(e *expiry) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.expiries = append(f.expiries, e)
}

// expiryOf returns the expiry that may end req, a watch of its resource, while it has times
// left; it counts the lists of the expiries' resources.
func (f *faults) expiryOf(req *http.Request) *expiry {
	if req.Method != http.MethodGet {
		return nil
	}
	resource := collection(req.URL.Path)
	watch := req.URL.Query().Get("watch")

	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range f.expiries {
		if e.resource != resource {
			continue
		}
		if (watch != "true" && watch != "1") || req.URL.Query().Get("sendInitialEvents") == "true" {
			e.lists++
		}
		if (watch == "true" || watch == "1") && e.fired < e.times {
			return e
		}
		return nil
	}
	return nil
}

// expired counts a watch e ended; false when e ended its times already (another watch of the
// resource was first).
func (f *faults) expired(e *expiry) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e.fired >= e.times {
		return false
	}
	e.fired++
	return true
}

// counts returns how many watches e ended and how many lists of its resource were sent.
func (f *faults) counts(e *expiry) (fired, lists int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return e.fired, e.lists
}

// collection is the resource of a request for a collection (/api/v1/configmaps,
// /apis/g/v/namespaces/ns/jobs), "" for any other path.
func collection(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return ""
	}
	if len(parts) == 3 && parts[0] == "namespaces" {
		parts = parts[2:]
	}
	if len(parts) != 1 {
		return ""
	}
	return parts[0]
}

// expiring is a watch body that passes its events through until the watch is in sync, then
// ends with expiredEvent where its next event other than a bookmark would be.
type expiring struct {
	f *faults
	e *expiry
	// events decodes the API server's stream, one JSON event after the other.
	events *json.Decoder
	// body is the API server's stream.
	body io.Closer
	// synced says the initial events of a watch-list stream were all sent (a plain watch starts in sync).
	synced bool
	// pending is what is left to read of the event passed on or of expiredEvent.
	pending []byte
	// ended says expiredEvent was sent.
	ended bool
}

// watchEvent is what expiring reads of an event.
type watchEvent struct {
	Type   string `json:"type"`
	Object struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	} `json:"object"`
}

func (x *expiring) Read(p []byte) (int, error) {
	for len(x.pending) == 0 {
		if x.ended {
			return 0, io.EOF
		}
		var raw json.RawMessage
		if err := x.events.Decode(&raw); err != nil {
			return 0, err
		}
		var ev watchEvent
		if err := json.Unmarshal(raw, &ev); err != nil {
			return 0, err
		}
		line := append(raw, '\n')
		switch {
		case !x.synced:
			x.synced = ev.Type == "BOOKMARK" && ev.Object.Metadata.Annotations["k8s.io/initial-events-end"] == "true"
		case ev.Type != "BOOKMARK" && x.f.expired(x.e):
			line, x.ended = []byte(expiredEvent), true
		}
		x.pending = line
	}
	n := copy(p, x.pending)
	x.pending = x.pending[n:]
	return n, nil
}

func (x *expiring) Close() error { return x.body.Close() }

// TestWatchExpires: the operator's watches of rollouts, runtimes, Applications, Jobs and
// ConfigMaps end, up to twice each, with 410 Gone where an event would be once they were in
// sync, so every event they drop is found only by a relist. The operator relists and converges to the plan and
// rollout of the run without a fault, each object created once.
func TestWatchExpires(t *testing.T) {
	base := baseline(t)
	w := newWorld(t)
	var expiries []*expiry
	for _, resource := range []string{"runtimerollouts", "clusterruntimes", "applications", "jobs", "configmaps"} {
		e := &expiry{resource: resource, times: 2}
		expiries = append(expiries, e)
		w.faults.expire(e)
	}
	w.start("operator", processOptions{})
	uid := w.createRuntime()
	w.waitInstalled(base.digest)
	assertInstalled(t, base.digest, uid)
	assertCreatedOnce(t, w.faults.recorded(), base.creates)
	for _, e := range expiries {
		fired, lists := w.faults.counts(e)
		t.Logf("%s: %d watches expired, %d lists", e.resource, fired, lists)
		assert.Positive(t, fired, "%s: a watch expired", e.resource)
		assert.Greater(t, lists, fired, "%s: every expired watch was followed by a relist", e.resource)
	}
}
