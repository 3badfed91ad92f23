package shared

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Unanswered is the request of err's chain that got no answer within its client's timeout: the
// host it went to and the request (method and path); ok is false when err holds none.
func Unanswered(err error) (host, request string, ok bool) {
	var ue *url.Error
	if !errors.As(err, &ue) || !ue.Timeout() {
		return "", "", false
	}
	u, perr := url.Parse(ue.URL)
	if perr != nil || u.Host == "" {
		return "", "", false
	}
	return u.Host, strings.ToUpper(ue.Op) + " " + u.EscapedPath(), true
}

// WaitingForHost says which host and request err waits on ("waiting for <host> to answer
// <request>"), or "" when err is not a request left unanswered.
func WaitingForHost(err error) string {
	host, request, ok := Unanswered(err)
	if !ok {
		return ""
	}
	return "waiting for " + answerOf(host, request)
}

// answerOf names the answer a request to host waits for.
func answerOf(host, request string) string {
	return fmt.Sprintf("%s to answer %s (no answer within the client's timeout)", host, request)
}
