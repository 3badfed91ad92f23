package shared

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// DefaultEngineWatchInterval is how often EngineWatch checks whether the engine kind is served.
const DefaultEngineWatchInterval = 30 * time.Second

// WatchTarget is a controller and the handler its engine-object events go through.
type WatchTarget struct {
	Controller controller.Controller
	Handler    handler.EventHandler
}

// EngineWatch adds the engine objects' watch (Argo CD Applications) to running controllers
// as soon as the kind is served (ENG-4). It is a manager Runnable: it checks discovery every
// Interval and adds the watch once, so CRDs installed after the operator started are watched
// without a restart; until then the controllers poll through their requeues.
type EngineWatch struct {
	cache    cache.Cache
	object   client.Object
	served   func(ctx context.Context) (bool, error)
	interval time.Duration
	targets  []WatchTarget
}

// NewEngineWatch returns the runnable watching object (an engine kind with its GVK set in the
// scheme) for targets. served reports whether the kind is served; nil uses ServedByDiscovery.
func NewEngineWatch(mgr ctrl.Manager, object client.Object, served func(ctx context.Context) (bool, error),
	interval time.Duration, targets ...WatchTarget) (*EngineWatch, error) {
	if served == nil {
		gvk, err := mgr.GetClient().GroupVersionKindFor(object)
		if err != nil {
			return nil, fmt.Errorf("engine watch: %w", err)
		}
		served = ServedByDiscovery(mgr.GetConfig(), gvk.GroupVersion().String(), gvk.Kind)
	}
	if interval <= 0 {
		interval = DefaultEngineWatchInterval
	}
	return &EngineWatch{cache: mgr.GetCache(), object: object, served: served, interval: interval, targets: targets}, nil
}

// ServedByDiscovery reports whether the API server serves kind in groupVersion.
func ServedByDiscovery(cfg *rest.Config, groupVersion, kind string) func(ctx context.Context) (bool, error) {
	return func(context.Context) (bool, error) {
		dc, err := discovery.NewDiscoveryClientForConfig(cfg)
		if err != nil {
			return false, fmt.Errorf("discovery client: %w", err)
		}
		list, err := dc.ServerResourcesForGroupVersion(groupVersion)
		if err != nil {
			return false, nil //nolint:nilerr // a group that is not served yet is the expected answer
		}
		for _, res := range list.APIResources {
			if res.Kind == kind {
				return true, nil
			}
		}
		return false, nil
	}
}

// Start polls until the kind is served, adds the watch to every target and returns.
func (w *EngineWatch) Start(ctx context.Context) error {
	log := ctrl.LoggerFrom(ctx).WithName("engine-watch")
	err := wait.PollUntilContextCancel(ctx, w.interval, true, func(ctx context.Context) (bool, error) {
		ok, err := w.served(ctx)
		if err != nil || !ok {
			log.V(1).Info("engine kind not served yet", "error", err)
			return false, nil
		}
		for _, t := range w.targets {
			if err := t.Controller.Watch(source.Kind[client.Object](w.cache, w.object, t.Handler)); err != nil {
				return false, fmt.Errorf("watch engine objects: %w", err)
			}
		}
		log.Info("watching engine objects")
		return true, nil
	})
	if ctx.Err() != nil {
		return nil
	}
	return err
}
