package jobexec

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// Aliases are registry valueOverrideKeys aliases AICR accepts in place of a
// component name in --set and --set-json (docs/design/aicr-cli.md section 7).
var Aliases = map[string]string{"gpuoperator": "gpu-operator", "awsebscsidriver": "aws-ebs-csi-driver"}

// rejectedOverride plays AICR rejecting a bundle Job whose --set or
// --set-json names a component that is neither in the recipe the Job reads
// (its -r input) nor an alias, that sets a component's top-level toggle with --set-json, or
// whose toleration flags AICR cannot parse: exit 2 with the INVALID_REQUEST
// command-failed line. ok is false when AICR would accept every override.
func rejectedOverride(job *batchv1.Job, inputs *corev1.ConfigMap) (res Result, ok bool) {
	c := aicrContainer(&job.Spec.Template.Spec)
	known, err := recipeComponents(c.Args, inputs)
	if err != nil {
		return failure(2, "[INVALID_REQUEST] "+err.Error()), true
	}
	for i := 0; i+1 < len(c.Args); i++ {
		if c.Args[i] != "--set" && c.Args[i] != "--set-json" {
			continue
		}
		component, rest, _ := strings.Cut(c.Args[i+1], ":")
		if c.Args[i] == "--set-json" && strings.HasPrefix(rest, "enabled=") {
			return failure(2, fmt.Sprintf("[INVALID_REQUEST] invalid --set-json %q: the top-level toggle enabled "+
				"cannot be set with --set-json, use --set %s:enabled=<true|false>", c.Args[i+1], component)), true
		}
		if !known[component] && !known[Aliases[component]] {
			return failure(2, fmt.Sprintf("[INVALID_REQUEST] invalid %s %q: unknown component %q", c.Args[i], c.Args[i+1], component)), true
		}
	}
	if res, bad := rejectedToleration(c.Args); bad {
		return res, true
	}
	if res, bad := rejectedSelector(c.Args); bad {
		return res, true
	}
	return Result{}, false
}

// labelKey is a node label key ([prefix/]name) and labelValue a label value, as the API server
// validates them.
var (
	labelKey   = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`)
	labelValue = regexp.MustCompile(`^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$`)
)

// rejectedSelector plays AICR parsing its node selector flags (ParseNodeSelectors): each
// value is key=value, validated as a node label; a value without "=" or with an invalid key or
// value fails with exit 2 before anything is rendered.
func rejectedSelector(args []string) (Result, bool) {
	for i := 0; i+1 < len(args); i++ {
		if args[i] != "--system-node-selector" && args[i] != "--accelerated-node-selector" && args[i] != "--node-selector" {
			continue
		}
		key, value, ok := strings.Cut(args[i+1], "=")
		if !ok || !labelKey.MatchString(key) || !labelValue.MatchString(value) {
			return failure(2, fmt.Sprintf("[INVALID_REQUEST] invalid node selector %q for %s: expected key=value", args[i+1], args[i])), true
		}
	}
	return Result{}, false
}

// rejectedToleration plays AICR parsing its toleration flags: each value is `*`, key=value:Effect
// or key:Effect, split on ':' into exactly two parts, with an effect the API server accepts;
// anything else fails with exit 2 before anything is rendered.
func rejectedToleration(args []string) (Result, bool) {
	for i := 0; i+1 < len(args); i++ {
		if args[i] != "--system-node-toleration" && args[i] != "--accelerated-node-toleration" && args[i] != "--toleration" {
			continue
		}
		v := args[i+1]
		if v == "*" {
			continue
		}
		parts := strings.Split(v, ":")
		if len(parts) != 2 || !slices.Contains([]string{"NoSchedule", "PreferNoSchedule", "NoExecute"}, parts[1]) {
			return failure(2, fmt.Sprintf("[INVALID_REQUEST] invalid toleration %q for %s: "+
				"expected key=value:Effect, key:Effect or *", v, args[i])), true
		}
	}
	return Result{}, false
}

// recipeComponents returns the component names of the recipe the -r
// argument names among the Job's inputs.
func recipeComponents(args []string, inputs *corev1.ConfigMap) (map[string]bool, error) {
	i := slices.Index(args, "-r")
	if i < 0 || i+1 == len(args) || inputs == nil {
		return nil, errors.New("no recipe input")
	}
	data, found := inputs.Data[path.Base(args[i+1])]
	if !found {
		return nil, fmt.Errorf("recipe file not found: %s", args[i+1])
	}
	var recipe struct {
		ComponentRefs []struct {
			Name string `json:"name"`
		} `json:"componentRefs"`
	}
	if err := yaml.Unmarshal([]byte(data), &recipe); err != nil {
		return nil, fmt.Errorf("parse recipe: %w", err)
	}
	known := map[string]bool{}
	for _, c := range recipe.ComponentRefs {
		known[c.Name] = true
	}
	return known, nil
}

// failure is a failed AICR run: its exit code and the command-failed JSON line it logs last.
func failure(code int32, msg string) Result {
	line, _ := json.Marshal(map[string]any{
		"level": "ERROR", "msg": "command failed", "module": "aicr", "error": msg, "exitCode": code,
	})
	return Result{ExitCode: code, Log: string(line) + "\n"}
}
