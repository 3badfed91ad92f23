package planstore

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/adapters/kube/planstore/plantrust"
	"github.com/NVIDIA/aicr/domain"
)

// withValues returns doc with the values of its releases loaded from the values ConfigMaps
// its ValuesRefs name (plan schema 2, PLAN-3); a schema 1 plan, whose values are inline, is
// returned as it is. doc is shared by the cache and never changed: the plan with values is a
// copy, kept under planKey and the versions of the values ConfigMaps it was read from. A
// missing values ConfigMap or values that do not match their digest stall PlanUnreadable.
func (p *Reader) withValues(ctx context.Context, planKey string, doc *configdoc.Plan) (*configdoc.Plan, *domain.Stall, error) {
	if len(doc.ValuesRefs) == 0 {
		return doc, nil, nil // schema 1: values inline, the digest checked when decoded
	}
	data := map[string]map[string]string{}
	key := planKey
	for _, ref := range doc.ValuesRefs {
		if _, ok := data[ref.Name]; ok {
			continue
		}
		cm := &corev1.ConfigMap{}
		if err := p.reader.Get(ctx, types.NamespacedName{Namespace: p.namespace, Name: ref.Name}, cm); err != nil {
			if apierrors.IsNotFound(err) {
				return nil, plantrust.Unreadable("plan %s: values ConfigMap %s/%s not found", doc.Digest, p.namespace, ref.Name), nil
			}
			return nil, nil, fmt.Errorf("read values %s of plan %s: %w", ref.Name, doc.Digest, err)
		}
		data[ref.Name] = cm.Data
		key += "+" + cacheKey(cm)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if plan, ok := p.cached(key); ok {
		return plan, nil, nil
	}
	out := *doc
	out.Releases = slices.Clone(doc.Releases)
	for i, ref := range doc.ValuesRefs {
		values, err := configdoc.DecodeValues(ref, out.Releases[i].ValuesDigest, data[ref.Name])
		if err != nil {
			return nil, plantrust.Unreadable("plan %s, release %s: %v", doc.Digest, out.Releases[i].ID, err), nil
		}
		out.Releases[i].Values = values
	}
	if refusal := plantrust.CheckDigest(&out); refusal != nil {
		return nil, refusal.Stall, nil
	}
	p.remember(key, &out)
	return &out, nil, nil
}
