package planstore

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/lru"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/planstore/plantrust"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// Reader reads plan ConfigMaps of the operator namespace through configdoc and checks them
// (plantrust: PLAN-5, PLAN-6, and the operator's seal: VerifyPlan) before returning a plan, with the values of its releases loaded
// from its values ConfigMap (schema 2) and checked against their valuesDigest. Plan and values
// ConfigMaps are immutable, so plans are kept by the UIDs and resourceVersions of the
// ConfigMaps they were read from and decoded once, in a least-recently-used cache of
// cacheSize plans.
type Reader struct {
	reader    client.Reader
	namespace string
	// seals verifies the operator's seal of each plan ConfigMap (VerifyPlan).
	seals ports.Sealer

	// mu makes one decode at a time; decoded has its own lock.
	mu      sync.Mutex
	decoded *lru.Cache
}

// cacheSize bounds how many decoded plans (and plans with their values) a Reader
// keeps: a plan read again after cacheSize other plans is decoded again. A runtime's
// reconciles read its current plan, its target plan and a few earlier ones, far fewer.
const cacheSize = 64

// NewReader returns a reader of the plan ConfigMaps in namespace that reads a plan only under
// the operator's seal, verified with seals (VerifyPlan).
func NewReader(reader client.Reader, namespace string, seals ports.Sealer) *Reader {
	return &Reader{reader: reader, namespace: namespace, seals: seals, decoded: lru.New(cacheSize)}
}

// Read returns the plan of digest for runtimeUID. A missing, Unreadable or foreign plan is a
// stall (PlanUnreadable, PlanOfAnotherRuntime); any other error is transient.
func (p *Reader) Read(ctx context.Context, digest, runtimeUID string) (*domain.Plan, *domain.Stall, error) {
	doc, stall, err := p.Document(ctx, digest, runtimeUID)
	if doc == nil {
		return nil, stall, err
	}
	return &doc.Plan, nil, nil
}

// Document returns the plan document of digest for runtimeUID (PLAN-2): the plan with the
// values of its releases and its references to recipes and bundle. Stalls and errors are
// those of Read; a missing values ConfigMap, or values that do not match the digest the plan
// records, stall PlanUnreadable (PLAN-6).
func (p *Reader) Document(ctx context.Context, digest, runtimeUID string) (*configdoc.Plan, *domain.Stall, error) {
	cm, stall, err := p.configMap(ctx, digest)
	return p.fromConfigMap(ctx, cm, stall, err, digest, runtimeUID)
}

// Lookup is Document that also reports whether the plan's ConfigMap does not exist at all
// (missing), which a caller rebuilding a lost plan (PLAN-7) must tell from an unreadable one.
func (p *Reader) Lookup(ctx context.Context, digest, runtimeUID string) (doc *configdoc.Plan, stall *domain.Stall,
	missing bool, err error) {
	cm, stall, err := p.configMap(ctx, digest)
	if apierrors.IsNotFound(err) {
		return nil, nil, true, nil
	}
	doc, stall, err = p.fromConfigMap(ctx, cm, stall, err, digest, runtimeUID)
	return doc, stall, false, err
}

// Namespace is the namespace the reader reads plans from.
func (p *Reader) Namespace() string { return p.namespace }

// configMap reads the plan ConfigMap of digest. A digest that names no plan ConfigMap is a
// PlanUnreadable stall; a missing one is the API's NotFound error, with cm naming it.
func (p *Reader) configMap(ctx context.Context, digest string) (*corev1.ConfigMap, *domain.Stall, error) {
	name, err := configdoc.PlanConfigMapName(digest)
	if err != nil {
		return nil, plantrust.Unreadable("plan digest %q is not a sha256 digest", digest), nil
	}
	cm := &corev1.ConfigMap{}
	if err = p.reader.Get(ctx, types.NamespacedName{Namespace: p.namespace, Name: name}, cm); err != nil {
		if apierrors.IsNotFound(err) {
			cm.Name = name
			return cm, nil, err
		}
		return nil, nil, fmt.Errorf("read plan %s: %w", digest, err)
	}
	return cm, nil, nil
}

// fromConfigMap turns what configMap read (cm, stall, err) into the plan document of digest
// for runtimeUID, with the stalls and errors of Document.
func (p *Reader) fromConfigMap(ctx context.Context, cm *corev1.ConfigMap, stall *domain.Stall, err error,
	digest, runtimeUID string) (*configdoc.Plan, *domain.Stall, error) {
	doc, stall, err := p.header(cm, stall, err, digest, runtimeUID)
	if doc == nil {
		return nil, stall, err
	}
	return p.withValues(ctx, cacheKey(cm), doc)
}

// header is fromConfigMap without the values: the decoded plan document of digest for
// runtimeUID, checked as PLAN-5 and PLAN-6 have it, whose values a schema 2 plan keeps in its
// values ConfigMap.
func (p *Reader) header(cm *corev1.ConfigMap, stall *domain.Stall, err error,
	digest, runtimeUID string) (*configdoc.Plan, *domain.Stall, error) {
	switch {
	case apierrors.IsNotFound(err):
		return nil, plantrust.Unreadable("plan %s: ConfigMap %s/%s not found", digest, p.namespace, cm.Name), nil
	case cm == nil || err != nil:
		return nil, stall, err
	}
	plan, refusal, sealErr := p.decode(cm)
	if refusal == nil {
		refusal = plantrust.Check(plantrust.Header(cm, plan), digest, runtimeUID)
	}
	if refusal == nil && sealErr != nil {
		refusal = &plantrust.Refusal{Failed: plantrust.Unsealed, Stall: plantrust.Unreadable(
			"plan ConfigMap %s/%s: %v; delete it and the operator resolves or rebuilds the plan", cm.Namespace, cm.Name, sealErr)}
	}
	if refusal != nil {
		return nil, refusal.Stall, nil
	}
	return plan, nil, nil
}

// decode returns the plan document of a plan ConfigMap (plantrust.Decode) and sealErr, the
// reason the operator may not read it (VerifyPlan: neither its seal nor a creation before the
// seal key vouches for it), which header reports after the unkeyed checks. A plan the operator
// may read is kept by the ConfigMap's version, which a change of its seal or claims changes;
// the digest of a schema 1 plan, whose values are inline, is checked here.
func (p *Reader) decode(cm *corev1.ConfigMap) (doc *configdoc.Plan, refusal *plantrust.Refusal, sealErr error) {
	key := cacheKey(cm)
	p.mu.Lock()
	defer p.mu.Unlock()
	if plan, ok := p.cached(key); ok {
		return plan, nil, nil
	}
	doc, refusal = plantrust.Decode(cm)
	if refusal != nil {
		return nil, refusal, nil
	}
	if len(doc.ValuesRefs) == 0 { // schema 1: values inline
		if refusal = plantrust.CheckDigest(doc); refusal != nil {
			return nil, refusal, nil
		}
	}
	if sealErr = VerifyPlan(p.seals, cm); sealErr != nil {
		return doc, nil, sealErr
	}
	p.remember(key, doc)
	return doc, nil, nil
}

// cached returns the plan kept under key, if it is still in the cache.
func (p *Reader) cached(key string) (*configdoc.Plan, bool) {
	v, ok := p.decoded.Get(key)
	if !ok {
		return nil, false
	}
	doc, ok := v.(*configdoc.Plan)
	return doc, ok
}

// remember keeps a decoded plan, evicting the least recently used one beyond cacheSize.
func (p *Reader) remember(key string, doc *configdoc.Plan) {
	p.decoded.Add(key, doc)
}

// cacheKey identifies one version of an immutable ConfigMap.
func cacheKey(cm *corev1.ConfigMap) string {
	return string(cm.UID) + "/" + cm.ResourceVersion
}
