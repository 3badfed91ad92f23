package network

import (
	"net/http"
	"regexp"
	"strings"
	"sync"
)

// gate is the server's outage switch and request log: while a hang is on, every request whose
// path starts with its prefix is accepted and held without an answer until the hang ends or its
// client gives up, as a host that accepts connections but never answers.
type gate struct {
	mu sync.Mutex
	// prefix selects the held requests ("": none held).
	prefix string
	// trigger, while set, arms the hang: it begins once a request whose "METHOD path" it
	// matches was answered.
	trigger *regexp.Regexp
	// open ends the current hang; closed by Answer.
	open chan struct{}
	// log is every request answered ("METHOD path") and every request held when it arrived
	// (HeldMark + "METHOD path"), in order.
	log []string
}

// Hang holds every later request whose path starts with prefix ("/v2/": the runtime registry,
// "/upstream/": the upstream chart repositories) until Answer.
func (r *Server) Hang(prefix string) {
	r.gate.mu.Lock()
	defer r.gate.mu.Unlock()
	if r.gate.open == nil {
		r.gate.open = make(chan struct{})
	}
	r.gate.prefix = prefix
}

// HangAfter holds, as Hang(prefix), every request after the first one whose "METHOD path"
// trigger matches was answered: an outage that begins in the middle of a run.
func (r *Server) HangAfter(prefix string, trigger *regexp.Regexp) {
	r.gate.mu.Lock()
	defer r.gate.mu.Unlock()
	r.gate.prefix, r.gate.trigger = prefix, trigger
}

// Answer ends the hang: held requests whose client still waits are served, later ones at once.
func (r *Server) Answer() {
	r.gate.mu.Lock()
	defer r.gate.mu.Unlock()
	if r.gate.open != nil {
		close(r.gate.open)
	}
	r.gate.open, r.gate.prefix, r.gate.trigger = nil, "", nil
}

// HeldMark begins the Requests entry of a request a hang held when it arrived.
const HeldMark = "held "

// Held is how many requests a hang held so far.
func (r *Server) Held() int {
	n := 0
	for _, x := range r.Requests() {
		if strings.HasPrefix(x, HeldMark) {
			n++
		}
	}
	return n
}

// Requests returns, in order, every request the server answered ("METHOD path") and every one
// a hang held when it arrived (HeldMark + "METHOD path"); a held request answered later is
// logged again when it is answered.
func (r *Server) Requests() []string {
	r.gate.mu.Lock()
	defer r.gate.mu.Unlock()
	return append([]string(nil), r.gate.log...)
}

// hold wraps next with the gate.
func (g *gate) hold(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		request := req.Method + " " + req.URL.Path
		g.mu.Lock()
		open := g.open
		held := open != nil && strings.HasPrefix(req.URL.Path, g.prefix)
		if held {
			g.log = append(g.log, HeldMark+request)
		}
		g.mu.Unlock()
		if held {
			select {
			case <-open:
			case <-req.Context().Done(): // the client gave up
				return
			}
		}
		next.ServeHTTP(w, req)
		g.served(request)
	})
}

// served logs an answered request and begins an armed hang once the request it waits for was
// answered.
func (g *gate) served(request string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.log = append(g.log, request)
	if g.trigger != nil && g.trigger.MatchString(request) {
		g.trigger, g.open = nil, make(chan struct{})
	}
}
