package manager

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// newCache returns the manager's cache constructor: the operator's own kinds go to the cache
// built from the manager's options, each kind in late to a cache of its own restricted to
// its ByObject's Namespaces, Label, Field and Transform. controller-runtime's ByObject needs
// the REST mapping of every kind it lists when the cache is built; a cache of its own needs it
// only once an object of the kind is read or watched, so the manager starts before the kind's
// CRD exists and caches the kind as soon as it is served, without a restart (ENG-4).
func newCache(late map[client.Object]cache.ByObject) cache.NewCacheFunc {
	return func(cfg *rest.Config, opts cache.Options) (cache.Cache, error) {
		def, err := cache.New(cfg, opts)
		if err != nil {
			return nil, fmt.Errorf("build cache: %w", err)
		}
		kinds := &kindCaches{scheme: opts.Scheme, def: def, late: map[schema.GroupVersionKind]cache.Cache{}}
		for obj, by := range late {
			gvk, err := apiutil.GVKForObject(obj, opts.Scheme)
			if err != nil {
				return nil, fmt.Errorf("cache of %T: %w", obj, err)
			}
			transform := by.Transform
			if transform == nil {
				transform = opts.DefaultTransform
			}
			c, err := cache.New(cfg, cache.Options{
				HTTPClient: opts.HTTPClient, Scheme: opts.Scheme, Mapper: opts.Mapper,
				DefaultNamespaces: by.Namespaces, DefaultLabelSelector: by.Label, DefaultFieldSelector: by.Field,
				DefaultTransform: transform,
			})
			if err != nil {
				return nil, fmt.Errorf("cache of %s: %w", gvk.Kind, err)
			}
			kinds.late[gvk] = c
		}
		return kinds, nil
	}
}

// kindCaches routes every call to the cache of the object's kind: a late kind's own cache or
// the default one.
type kindCaches struct {
	scheme *runtime.Scheme
	def    cache.Cache
	late   map[schema.GroupVersionKind]cache.Cache
}

var _ cache.Cache = (*kindCaches)(nil)

// Get reads obj from the cache of its kind.
func (k *kindCaches) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	c, err := k.forObject(obj)
	if err != nil {
		return err
	}
	return c.Get(ctx, key, obj, opts...)
}

// List lists from the cache of the list's item kind.
func (k *kindCaches) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	c, err := k.forObject(list)
	if err != nil {
		return err
	}
	return c.List(ctx, list, opts...)
}

// GetInformer returns the informer of obj's kind from the cache of that kind.
func (k *kindCaches) GetInformer(ctx context.Context, obj client.Object, opts ...cache.InformerGetOption) (cache.Informer, error) {
	c, err := k.forObject(obj)
	if err != nil {
		return nil, err
	}
	return c.GetInformer(ctx, obj, opts...)
}

// GetInformerForKind returns the informer of gvk from the cache of that kind.
func (k *kindCaches) GetInformerForKind(ctx context.Context, gvk schema.GroupVersionKind, opts ...cache.InformerGetOption) (cache.Informer, error) {
	return k.forKind(gvk).GetInformerForKind(ctx, gvk, opts...)
}

// RemoveInformer stops the informer of obj's kind.
func (k *kindCaches) RemoveInformer(ctx context.Context, obj client.Object) error {
	c, err := k.forObject(obj)
	if err != nil {
		return err
	}
	return c.RemoveInformer(ctx, obj)
}

// IndexField adds a field index to the informer of obj's kind.
func (k *kindCaches) IndexField(ctx context.Context, obj client.Object, field string, extract client.IndexerFunc) error {
	c, err := k.forObject(obj)
	if err != nil {
		return err
	}
	return c.IndexField(ctx, obj, field, extract)
}

// Start runs every cache until ctx ends or one of them fails.
func (k *kindCaches) Start(ctx context.Context) error {
	var wg sync.WaitGroup
	errs := make(chan error, 1+len(k.late))
	for _, c := range k.all() {
		wg.Go(func() {
			if err := c.Start(ctx); err != nil {
				errs <- err
			}
		})
	}
	select {
	case err := <-errs:
		return err
	case <-ctx.Done():
		wg.Wait()
		return nil
	}
}

// WaitForCacheSync waits until every cache has synced the informers it holds.
func (k *kindCaches) WaitForCacheSync(ctx context.Context) bool {
	synced := true
	for _, c := range k.all() {
		synced = c.WaitForCacheSync(ctx) && synced
	}
	return synced
}

func (k *kindCaches) all() []cache.Cache {
	return append(slices.Collect(maps.Values(k.late)), k.def)
}

func (k *kindCaches) forObject(obj runtime.Object) (cache.Cache, error) {
	gvk, err := apiutil.GVKForObject(obj, k.scheme)
	if err != nil {
		return nil, fmt.Errorf("kind of %T: %w", obj, err)
	}
	gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
	return k.forKind(gvk), nil
}

func (k *kindCaches) forKind(gvk schema.GroupVersionKind) cache.Cache {
	if c, ok := k.late[gvk]; ok {
		return c
	}
	return k.def
}
