package manager

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/go-logr/logr"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// authorizedByAPIServer is the metrics endpoint's filter (OPS-2): a request needs a bearer
// token the API server authenticates (TokenReview, else 401) for a user it authorizes to get
// the request's non-resource path (SubjectAccessReview, else 403), as kube-rbac-proxy and
// controller-runtime's own filter do. It asks client-go's typed clients directly:
// controller-runtime's filter links k8s.io/apiserver with CEL, gRPC and OpenTelemetry into
// the operator, 16 MB of binary and more resident memory than all its caches.
func authorizedByAPIServer(c *rest.Config, hc *http.Client) (metricsserver.Filter, error) {
	cs, err := kubernetes.NewForConfigAndClient(c, hc)
	if err != nil {
		return nil, fmt.Errorf("metrics authorization client: %w", err)
	}
	return func(log logr.Logger, next http.Handler) (http.Handler, error) {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || token == "" {
				http.Error(w, "Unauthorized", http.StatusUnauthorized)
				return
			}
			tr, err := cs.AuthenticationV1().TokenReviews().Create(r.Context(),
				&authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
			if err != nil {
				log.Error(err, "metrics: token review failed")
				http.Error(w, "Internal Server Error", http.StatusInternalServerError)
				return
			}
			if !tr.Status.Authenticated {
				http.Error(w, "Unauthorized", http.StatusUnauthorized)
				return
			}
			u := tr.Status.User
			extra := make(map[string]authorizationv1.ExtraValue, len(u.Extra))
			for k, v := range u.Extra {
				extra[k] = authorizationv1.ExtraValue(v)
			}
			sar, err := cs.AuthorizationV1().SubjectAccessReviews().Create(r.Context(), &authorizationv1.SubjectAccessReview{
				Spec: authorizationv1.SubjectAccessReviewSpec{User: u.Username, UID: u.UID, Groups: u.Groups, Extra: extra,
					NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: r.URL.Path, Verb: strings.ToLower(r.Method)}},
			}, metav1.CreateOptions{})
			if err != nil {
				log.Error(err, "metrics: subject access review failed")
				http.Error(w, "Internal Server Error", http.StatusInternalServerError)
				return
			}
			if !sar.Status.Allowed {
				http.Error(w, "Forbidden", http.StatusForbidden)
				return
			}
			next.ServeHTTP(w, r)
		}), nil
	}, nil
}
