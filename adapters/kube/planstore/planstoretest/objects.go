package planstoretest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// Objects writes plans through the plan store into an empty in-memory API and returns every
// ConfigMap written, for a test that seeds a fake API of its own (kubectl aicr's). tamper, when
// not nil, alters what was stored before it is returned.
func Objects(t testing.TB, namespace string, plans []Plan, tamper func(Store)) []*corev1.ConfigMap {
	t.Helper()
	s := Store{Client: fake.NewClientBuilder().Build(), Namespace: namespace}
	for _, p := range plans {
		s.Write(t, p)
	}
	if tamper != nil {
		tamper(s)
	}
	var list corev1.ConfigMapList
	require.NoError(t, s.Client.List(context.Background(), &list, client.InNamespace(namespace)))
	out := make([]*corev1.ConfigMap, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
		out[i].ResourceVersion = ""
	}
	return out
}
