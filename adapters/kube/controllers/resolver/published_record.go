package resolver

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

const (
	// PublishedChartsConfigMap is the ConfigMap in the operator namespace that keeps the record
	// of the upstream charts the resolver published for the plan it resolved last, so a publish
	// cut short resumes after them when the operator restarts (domain.Publish.Keep).
	PublishedChartsConfigMap = "aicr-published-charts"
	// RolePublishedCharts is its operator.aicr.run/role label.
	RolePublishedCharts = "published-charts"
	// publishedChartsKey is its data key: the charts as JSON.
	publishedChartsKey = "charts.json"
)

// publishedSubject is what the record's seal is bound to: a seal copied to another ConfigMap,
// or to one of the same name created again, does not verify.
func publishedSubject(cm *corev1.ConfigMap) ports.SealSubject {
	return ports.SealSubject{Kind: "ConfigMap", Namespace: cm.Namespace, Name: cm.Name, UID: string(cm.UID)}
}

// restorePublished records in r.published the charts the kept record lists when the operator
// can prove it wrote it and it is unchanged: its role label and its seal over the charts,
// bound to the ConfigMap (ports.Sealer). A record missing is nothing to restore; one that does
// not prove itself is not trusted and is logged, and the next keep replaces it.
func (r *Reconciler) restorePublished(ctx context.Context) error {
	cm := &corev1.ConfigMap{}
	err := r.Reader.Get(ctx, client.ObjectKey{Namespace: r.Config.OperatorNamespace, Name: PublishedChartsConfigMap}, cm)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the record of the published charts: %w", err)
	}
	charts, err := r.verifyPublished(cm)
	if err != nil {
		log.FromContext(ctx).Info("not trusting the record of the published charts: its charts are fetched from their upstreams again",
			"configMap", PublishedChartsConfigMap, "reason", err.Error())
		return nil
	}
	r.published.Restore(charts)
	return nil
}

// verifyPublished returns the charts of the kept record cm, or why it is not trusted.
func (r *Reconciler) verifyPublished(cm *corev1.ConfigMap) ([]domain.PublishedChart, error) {
	if cm.Labels[aicrv1alpha1.LabelRole] != RolePublishedCharts {
		return nil, fmt.Errorf("label %s is %q, not %q", aicrv1alpha1.LabelRole, cm.Labels[aicrv1alpha1.LabelRole], RolePublishedCharts)
	}
	content := []byte(cm.Data[publishedChartsKey])
	if err := r.Config.Sealer.Verify(publishedSubject(cm), content, cm.Annotations[aicrv1alpha1.AnnotationSeal]); err != nil {
		return nil, err
	}
	var charts []domain.PublishedChart
	if err := json.Unmarshal(content, &charts); err != nil {
		return nil, fmt.Errorf("decode %s: %w", publishedChartsKey, err)
	}
	return charts, nil
}

// keepPublished replaces the kept record with charts, sealed (domain.Publish.Keep). A ConfigMap
// of that name is created first when missing: the seal is bound to its UID.
func (r *Reconciler) keepPublished(ctx context.Context, charts []domain.PublishedChart) error {
	content, err := json.Marshal(charts)
	if err != nil {
		return fmt.Errorf("encode the published charts: %w", err)
	}
	cm := &corev1.ConfigMap{}
	key := client.ObjectKey{Namespace: r.Config.OperatorNamespace, Name: PublishedChartsConfigMap}
	err = r.Reader.Get(ctx, key, cm)
	if apierrors.IsNotFound(err) {
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name,
			Labels: map[string]string{aicrv1alpha1.LabelRole: RolePublishedCharts}}}
		err = r.Client.Create(ctx, cm)
	}
	if err != nil {
		return fmt.Errorf("keep the published charts in ConfigMap %s: %w", key.Name, err)
	}
	if cm.Immutable != nil && *cm.Immutable {
		// Not the operator's (it never writes one immutable): deleted, the next keep creates it.
		uid := cm.UID
		if err := r.Client.Delete(ctx, cm, client.Preconditions{UID: &uid}); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("delete the immutable ConfigMap %s in the way of the published charts: %w", key.Name, err)
		}
		return fmt.Errorf("ConfigMap %s was immutable, not the operator's: deleted, kept at the next chart", key.Name)
	}
	patch := client.MergeFromWithOptions(cm.DeepCopy(), client.MergeFromWithOptimisticLock{})
	if cm.Labels == nil {
		cm.Labels = map[string]string{}
	}
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Labels[aicrv1alpha1.LabelRole] = RolePublishedCharts
	cm.Data = map[string]string{publishedChartsKey: string(content)}
	cm.BinaryData = nil
	cm.Annotations[aicrv1alpha1.AnnotationSeal] = r.Config.Sealer.Seal(publishedSubject(cm), content)
	if err := r.Client.Patch(ctx, cm, patch); err != nil {
		return fmt.Errorf("keep the published charts in ConfigMap %s: %w", key.Name, err)
	}
	return nil
}
