package aicrcontract_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/adapters/kube/configdoc"
	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// collectedSnapshots are the reference snapshots and the one the simulator plays, as AICR's
// privileged agent wrote them on the node.
func collectedSnapshots(t *testing.T) map[string]string {
	t.Helper()
	out := referenceSnapshotTexts(t)
	played, err := os.ReadFile(filepath.Join(jobexec.Root(), "test", "jobexec", "testdata", "snapshot-eks-h100-ubuntu.yaml"))
	require.NoError(t, err)
	out["simulator"] = string(played)
	return out
}

// facts is what the operator's reader takes from a snapshot. A snapshot AICR writes records its
// version (2.1); a hand-made one of the reference that does not is read as v1.0.0's, so its
// measurements, which these cases are about, are read at all.
func facts(t *testing.T, what, snapshot string) domain.SnapshotFacts {
	t.Helper()
	var doc map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(snapshot), &doc), what)
	meta, _ := doc["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	if meta["version"] == nil {
		meta["version"] = "v1.0.0"
	}
	doc["metadata"] = meta
	raw, err := yaml.Marshal(doc)
	require.NoError(t, err)
	f, st, err := configdoc.SnapshotFacts(raw)
	require.NoError(t, err, what)
	require.Nil(t, st, what)
	return f
}

// measurementTypes are the measurement types of a snapshot.
func measurementTypes(t *testing.T, what, snapshot string) []string {
	t.Helper()
	var doc snapshotDoc
	require.NoError(t, yaml.Unmarshal([]byte(snapshot), &doc), what)
	var out []string
	for _, m := range doc.Measurements {
		out = append(out, m.Type)
	}
	return out
}

// 5.4: in AICR's restricted agent (non-root, no privilege, no host mounts) only the K8s and OS
// collectors measure. The simulator collects that way, the operator's own agent Pod is not
// restricted (its snapshot is the node's, unchanged), and the operator's reader refuses a
// restricted snapshot for a runtime that declares its accelerator: SnapshotIncomplete.
func TestFact5_4_RestrictedAgentMeasuresOnlyK8sAndOS(t *testing.T) {
	t.Parallel()
	restricted := corev1.PodSpec{
		SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65534),
			RunAsGroup: ptr.To[int64](65534), FSGroup: ptr.To[int64](65534),
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
		Containers: []corev1.Container{{Name: jobs.ContainerName, SecurityContext: &corev1.SecurityContext{
			ReadOnlyRootFilesystem: ptr.To(true), AllowPrivilegeEscalation: ptr.To(false),
			Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}}},
	}
	operator := operatorAgentPod(t)
	for what, node := range collectedSnapshots(t) {
		own, err := jobexec.Collected(operator, node)
		require.NoError(t, err, what)
		assert.Equal(t, node, own, "%s: the operator's agent loses a measurement", what)

		got, err := jobexec.Collected(restricted, node)
		require.NoError(t, err, "%s: a restricted agent still writes its snapshot", what)
		for _, typ := range measurementTypes(t, what, got) {
			assert.Contains(t, []string{"K8s", "OS"}, typ, what)
		}
		declared := facts(t, what, node)
		if declared["accelerator"] == "" {
			continue
		}
		assert.Empty(t, facts(t, what, got)["accelerator"], what)
		st := domain.CheckSnapshot(declared, facts(t, what, got))
		require.NotNil(t, st, "%s: the operator resolves a restricted snapshot", what)
		assert.Equal(t, domain.StallSnapshotIncomplete, st.Reason(), what)
	}
}

// 5.7: a collector that cannot read what it needs is left out, and the snapshot is still
// written. Without the node's /run/systemd the SystemD measurement is missing; without the
// node's /etc/os-release the OS collector reads the image's own (Debian), which the operator's
// reader then sees as a conflict with a runtime that declares the node's OS.
func TestFact5_7_FailedCollectorsAreLeftOut(t *testing.T) {
	t.Parallel()
	pod := operatorAgentPod(t)
	pod.Volumes = slices.DeleteFunc(slices.Clone(pod.Volumes), func(v corev1.Volume) bool { return v.HostPath != nil })
	for what, node := range collectedSnapshots(t) {
		got, err := jobexec.Collected(pod, node)
		require.NoError(t, err, "%s: a failed collector fails the snapshot", what)
		types := measurementTypes(t, what, got)
		assert.NotContains(t, types, "SystemD", what)
		for _, typ := range measurementTypes(t, what, node) {
			if typ != "SystemD" {
				assert.Contains(t, types, typ, "%s: a collector that needs no host mount is left out", what)
			}
		}
		declared := facts(t, what, node)
		if declared["os"] == "" || declared["os"] == jobexec.ImageOSRelease["ID"] {
			continue
		}
		assert.Equal(t, jobexec.ImageOSRelease["ID"], facts(t, what, got)["os"], what)
		st := domain.CheckSnapshot(map[string]string{"os": declared["os"]}, facts(t, what, got))
		require.NotNil(t, st, "%s: the operator accepts the image's OS for the node's", what)
		assert.Equal(t, domain.StallCriteriaConflict, st.Reason(), what)
	}
}
