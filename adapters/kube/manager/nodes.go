package manager

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/NVIDIA/aicr/adapters/kube/wellknown"
)

// NodeLabelsDigest is the only label of a Node in the operator's cache: the SHA-256 of the
// Node's labels (the first 16 bytes, in hex). A GPU fleet's Nodes carry dozens of labels each,
// which a cache of thousands of Nodes would hold for nothing: the operator watches Nodes only
// to learn that one was added, relabelled or deleted, and reads the labels it needs from the
// API server when it discovers the node groups.
const NodeLabelsDigest = wellknown.Prefix + "node-labels-sha256"

// nodeLabelsDigest is the cache transform of Node metadata: the Node's name, UID and resource
// version, and NodeLabelsDigest in place of its labels. Any other object, and a Node already
// transformed, is kept as it is: client-go may transform an object more than once, so a
// transform must be idempotent.
func nodeLabelsDigest(obj any) (any, error) {
	n, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		return obj, nil
	}
	if _, done := n.Labels[NodeLabelsDigest]; done && len(n.Labels) == 1 {
		return n, nil
	}
	return &metav1.PartialObjectMetadata{TypeMeta: n.TypeMeta, ObjectMeta: metav1.ObjectMeta{
		Name: n.Name, UID: n.UID, ResourceVersion: n.ResourceVersion,
		Labels: map[string]string{NodeLabelsDigest: labelsDigest(n.Labels)},
	}}, nil
}

// labelsDigest fingerprints labels: every key and value, in key order, each ended by a NUL
// (which neither may contain).
func labelsDigest(labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	h := sha256.New()
	for _, k := range keys {
		h.Write([]byte(k + "\x00" + labels[k] + "\x00"))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
