package jobexec

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/adapters/jobs"
)

// ImageOSRelease is the OS release of AICR's image (distroless, Debian 12), which AICR's OS
// collector reports when the node's /etc/os-release is not mounted over the image's.
var ImageOSRelease = map[string]any{"ID": "debian", "NAME": "Debian GNU/Linux", "VERSION_ID": "12"}

// deviceMeasurements are the measurement types whose collectors read the node's devices and
// kernel, which only a privileged container can.
var deviceMeasurements = []string{"gpu", "topology", "network"}

// Collected is the snapshot AICR v1's agent writes in a Pod of spec pod on the node whose full
// snapshot is snapshot (YAML): its collectors run side by side, and one that cannot read what it
// needs logs the error and is left out, the snapshot still written and the command exiting 0.
// Without a privileged container (AICR's restricted mode among them) the GPU, topology and
// network collectors read no device; without the node's /run/systemd the systemd collector
// reads nothing; without the node's /etc/os-release the OS collector reads the image's own
// (ImageOSRelease). The K8s collector reads the API server and always measures. The snapshot is
// returned unchanged when the Pod has the privileged agent's shape.
func Collected(pod corev1.PodSpec, snapshot string) (string, error) {
	c := aicrContainer(&pod)
	privileged := c.SecurityContext != nil && c.SecurityContext.Privileged != nil && *c.SecurityContext.Privileged
	systemd := hostMounted(pod, c, jobs.AgentSystemdPath, corev1.HostPathDirectory)
	osRelease := hostMounted(pod, c, jobs.AgentOSReleasePath, corev1.HostPathFile)
	if privileged && systemd && osRelease {
		return snapshot, nil
	}
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(snapshot), &doc); err != nil {
		return "", fmt.Errorf("collect: snapshot: %w", err)
	}
	measurements, _ := doc["measurements"].([]any)
	kept := make([]any, 0, len(measurements))
	for _, m := range measurements {
		mm, _ := m.(map[string]any)
		typ, _ := mm["type"].(string)
		switch t := strings.ToLower(typ); {
		case !privileged && slices.Contains(deviceMeasurements, t), !systemd && t == "systemd":
			continue
		case !osRelease && t == "os":
			mm = imageOS(mm)
		}
		kept = append(kept, mm)
	}
	doc["measurements"] = kept
	out, err := yaml.Marshal(doc)
	if err != nil {
		return "", fmt.Errorf("collect: snapshot: %w", err)
	}
	return string(out), nil
}

// imageOS is the OS measurement m with its release subtype read from the image's own file.
func imageOS(m map[string]any) map[string]any {
	out := maps.Clone(m)
	subtypes, _ := m["subtypes"].([]any)
	replaced := make([]any, 0, len(subtypes))
	for _, s := range subtypes {
		sub, _ := s.(map[string]any)
		if sub["subtype"] == "release" {
			sub = map[string]any{"subtype": "release", "data": maps.Clone(ImageOSRelease)}
		}
		replaced = append(replaced, sub)
	}
	out["subtypes"] = replaced
	return out
}

// collect plays AICR's collectors in the snapshot Job's Pod over res's snapshot (Collected).
func collect(pod corev1.PodSpec, res Result) (Result, error) {
	snapshot, ok := res.Data[jobs.OutputKey]
	if !ok {
		return res, nil
	}
	collected, err := Collected(pod, snapshot)
	if err != nil {
		return res, err
	}
	res.Data = maps.Clone(res.Data)
	res.Data[jobs.OutputKey] = collected
	return res, nil
}
