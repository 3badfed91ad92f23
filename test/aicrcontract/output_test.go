package aicrcontract_test

import (
	"bufio"
	"context"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/adapters/jobs"
	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/jobexec"
	"github.com/NVIDIA/aicr/test/sealtest"
)

// outputStages are the operator's Jobs that write a -o cm:// artifact.
var outputStages = []ports.JobKind{ports.JobSnapshot, ports.JobRecipe, ports.JobUpgradeCheck, ports.JobValidate}

// stage is one of the operator's AICR Jobs, started by its runner on a fake API server.
type stage struct {
	runner *jobs.Runner
	c      client.Client
	job    *batchv1.Job
}

// startStage starts the operator's Job of kind with the resolver's arguments (shared); the
// validate Job, which the resolver does not build, asks for YAML, which AICR ignores.
func startStage(t *testing.T, kind ports.JobKind) stage {
	t.Helper()
	scheme := runtime.NewScheme()
	require.NoError(t, clientgoscheme.AddToScheme(scheme))
	c := fake.NewClientBuilder().WithScheme(scheme).WithStatusSubresource(&batchv1.Job{}).Build()
	cfg := jobs.Config{Sealer: sealtest.New(), Namespace: "aicr-jobs", OperatorNamespace: "aicr-system", Image: aicrImage, CopierImage: jobexec.CopierImage}
	if kind == ports.JobSnapshot {
		cfg.Namespace, cfg.ServiceAccount, cfg.Agent = "aicr-discovery", jobs.AgentServiceAccount, true
	}
	r, err := jobs.New(cfg, c, c)
	require.NoError(t, err)
	name := "aicr-" + string(kind) + "-contract"
	in := ports.JobInputsDir + "/"
	args := map[ports.JobKind][]string{
		ports.JobSnapshot:     shared.SnapshotArgs(r.OutputRef(name)),
		ports.JobRecipe:       shared.RecipeArgs(in+"config.yaml", in+"snapshot.yaml", in+"inherit.yaml", r.OutputRef(name)),
		ports.JobUpgradeCheck: shared.UpgradeCheckArgs(in+"from.yaml", in+"recipe.yaml", r.OutputRef(name)),
		ports.JobValidate:     {"--log-json", "validate", "--format", "yaml", "-o", r.OutputRef(name)},
	}[kind]
	require.NotNil(t, args, kind)
	_, err = r.Start(context.Background(), ports.JobSpec{Name: name, Kind: kind, Args: args, Image: aicrImage})
	require.NoError(t, err)
	job := &batchv1.Job{}
	require.NoError(t, c.Get(context.Background(), client.ObjectKey{Namespace: cfg.Namespace, Name: name}, job))
	return stage{runner: r, c: c, job: job}
}

// succeed writes data and labels into the stage's output ConfigMap as AICR's Pod would and
// finishes the Job, then returns what the operator's runner reads of it.
func (s stage) succeed(t *testing.T, labels, data map[string]string) (fs.FS, ports.JobStatus, error) {
	t.Helper()
	ctx := context.Background()
	out := &corev1.ConfigMap{}
	require.NoError(t, s.c.Get(ctx, client.ObjectKey{Namespace: s.job.Namespace, Name: jobs.OutputName(s.job.Name)}, out))
	for k, v := range labels {
		out.Labels[k] = v
	}
	out.Data = data
	require.NoError(t, s.c.Update(ctx, out))
	s.job.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()}}
	require.NoError(t, s.c.Status().Update(ctx, s.job))
	ref := ports.JobRef{Name: s.job.Name}
	st, err := s.runner.Status(ctx, ref)
	if err != nil {
		return nil, st, err
	}
	files, err := s.runner.Output(ctx, ref)
	return files, st, err
}

// fixture is what the simulator plays for each stage: the v1 synthetic bundle's artifacts.
func fixture(t *testing.T) jobexec.Fixture {
	t.Helper()
	f, err := jobexec.BundleFixture("v1.1.0", "v1-layout-synthetic-eks-h100-ubuntu-training-kubeflow/bundle-helm", nil)
	require.NoError(t, err)
	return f
}

// played is the data the simulator writes into the stage's output for f's result.
func (s stage) played(t *testing.T, f jobexec.Fixture) map[string]string {
	t.Helper()
	data, err := jobexec.OutputData(s.job, f.Result(ports.JobKind(s.job.Labels[jobs.KindLabel])), time.Now())
	require.NoError(t, err)
	return data
}

// formatExt is the extension of the snapshot.<ext> key AICR stores each format under.
var formatExt = map[string]string{"yaml": "yaml", "json": "json", "table": "txt"}

// referenceConfigMaps returns the ConfigMaps of AICR's documentation in the reference directory.
func referenceConfigMaps(t *testing.T) map[string]corev1.ConfigMap {
	t.Helper()
	out := map[string]corev1.ConfigMap{}
	for _, p := range referenceFiles(t, ".yaml") {
		raw, err := os.ReadFile(p)
		require.NoError(t, err)
		var cm corev1.ConfigMap
		if yaml.Unmarshal(raw, &cm) == nil && cm.Kind == "ConfigMap" {
			out[p] = cm
		}
	}
	require.NotEmpty(t, out, "the reference directory holds no output ConfigMap")
	return out
}

// assertOutputKeys holds data to AICR's output keys: exactly snapshot.<ext>, format and timestamp.
func assertOutputKeys(t *testing.T, what string, data map[string]string) string {
	t.Helper()
	assert.Len(t, data, 3, "%s: %v", what, data)
	key := "snapshot." + formatExt[data["format"]]
	assert.Contains(t, data, key, "%s: format %q", what, data["format"])
	assert.Contains(t, jobs.ArtifactKeys, key, "%s: the operator's reader knows %s", what, key)
	_, err := time.Parse(time.RFC3339, data["timestamp"])
	assert.NoError(t, err, "%s: timestamp", what)
	return key
}

// 1.1: the operator writes every artifact to cm://<namespace>/<name>, which AICR parses; a
// malformed URI is refused by the simulator as AICR refuses it, INVALID_REQUEST with exit 2
// and nothing written.
func TestFact1_1_ConfigMapURIs(t *testing.T) {
	t.Parallel()
	for _, kind := range outputStages {
		s := startStage(t, kind)
		out := jobexec.AICRArgs(s.job)
		assert.Contains(t, out, "cm://"+s.job.Namespace+"/"+jobs.OutputName(s.job.Name), kind)
		assert.Nil(t, jobexec.RefusedOutput(s.job), kind)
		for _, bad := range []string{"cm://" + jobs.OutputName(s.job.Name), "cm://" + s.job.Namespace + "/",
			"cm:///" + jobs.OutputName(s.job.Name), "cm://" + strings.ToUpper(s.job.Namespace) + "/x", "cm://" + s.job.Namespace + "/a/b"} {
			job := withArg(s.job, "-o", bad)
			res := fixture(t).Behavior()(job, nil)
			assert.Equal(t, int32(2), res.ExitCode, bad)
			assert.Contains(t, res.Log, "[INVALID_REQUEST]", bad)
			assert.Empty(t, res.Data, bad)
		}
	}
}

// withArg is job with the value of flag replaced by value.
func withArg(job *batchv1.Job, flag, value string) *batchv1.Job {
	job = job.DeepCopy()
	args := job.Spec.Template.Spec.Containers[0].Args
	for i := range args[:len(args)-1] {
		if args[i] == flag {
			args[i+1] = value
		}
	}
	return job
}

// 1.3: an output holds exactly snapshot.<ext>, format and timestamp (RFC 3339), as the documented
// ConfigMap does and the simulator writes for every stage; the operator's reader takes the
// artifact from whichever of the three keys holds it.
func TestFact1_3_OutputKeys(t *testing.T) {
	t.Parallel()
	for p, cm := range referenceConfigMaps(t) {
		assertOutputKeys(t, p, cm.Data)
	}
	f := fixture(t)
	for _, kind := range outputStages {
		s := startStage(t, kind)
		data := s.played(t, f)
		key := assertOutputKeys(t, string(kind), data)
		files, _, err := s.succeed(t, jobexec.OutputLabels(), data)
		require.NoError(t, err, kind)
		artifact, err := fs.ReadFile(files, ports.JobArtifactFile)
		require.NoError(t, err, kind)
		assert.Equal(t, data[key], string(artifact), kind)
	}
	for format, ext := range formatExt {
		s := startStage(t, ports.JobRecipe)
		files, _, err := s.succeed(t, jobexec.OutputLabels(),
			map[string]string{"snapshot." + ext: "artifact in " + format, "format": format, "timestamp": time.Now().UTC().Format(time.RFC3339)})
		require.NoError(t, err, format)
		artifact, err := fs.ReadFile(files, ports.JobArtifactFile)
		require.NoError(t, err, format)
		assert.Equal(t, "artifact in "+format, string(artifact))
	}
}

// defaultFormats reads the default --format of each command from AICR's CLI surface golden.
func defaultFormats(t *testing.T) map[string]string {
	t.Helper()
	line := regexp.MustCompile(`^flag\s+aicr (\S+)\s+--format,-t\s+type=string default="([a-z]+)"`)
	out := map[string]string{}
	for _, p := range referenceFiles(t, "cli-surface.golden") {
		f, err := os.Open(p)
		require.NoError(t, err)
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if m := line.FindStringSubmatch(sc.Text()); m != nil {
				out[m[1]] = m[2]
			}
		}
		require.NoError(t, f.Close())
	}
	require.NotEmpty(t, out, "the reference holds no CLI surface with a --format default")
	return out
}

// 1.4: the key each stage's artifact lands in follows its format: the --format the operator
// passes, else the command's default in AICR's CLI surface (yaml for snapshot and recipe);
// validate always writes JSON. The simulator keys each stage so, and the reader reads it.
func TestFact1_4_OutputKeyPerStage(t *testing.T) {
	t.Parallel()
	defaults := defaultFormats(t)
	f := fixture(t)
	for _, kind := range outputStages {
		s := startStage(t, kind)
		args := jobexec.AICRArgs(s.job)
		format := argValueOf(args, "--format")
		if format == "" {
			format = defaults[string(kind)]
		}
		if kind == ports.JobValidate {
			format = "json"
		}
		require.NotEmpty(t, format, "%s: no --format and no default in the CLI surface", kind)
		data := s.played(t, f)
		key := "snapshot." + formatExt[format]
		assert.Contains(t, data, key, kind)
		files, _, err := s.succeed(t, jobexec.OutputLabels(), data)
		require.NoError(t, err, kind)
		artifact, err := fs.ReadFile(files, ports.JobArtifactFile)
		require.NoError(t, err, kind)
		assert.Equal(t, data[key], string(artifact), kind)
	}
}

func argValueOf(args []string, flag string) string {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == flag {
			return args[i+1]
		}
	}
	return ""
}

// 1.5: upgrade-check --format table to a ConfigMap is refused with INVALID_REQUEST, exit 2. The
// operator's upgrade-check asks for JSON, which the simulator writes; asked for a table (or
// with no --format, whose default is the table) the simulator refuses it as AICR does.
func TestFact1_5_NoTableToAConfigMap(t *testing.T) {
	t.Parallel()
	s := startStage(t, ports.JobUpgradeCheck)
	assert.Equal(t, "json", argValueOf(jobexec.AICRArgs(s.job), "--format"))
	res := fixture(t).Behavior()(s.job, nil)
	assert.Equal(t, int32(0), res.ExitCode, res.Log)
	table := fixture(t).Behavior()(withArg(s.job, "--format", "table"), nil)
	assert.Equal(t, int32(2), table.ExitCode)
	assert.Contains(t, table.Log, "[INVALID_REQUEST]")
	assert.Contains(t, table.Log, "table output does not support ConfigMap destinations")
	assert.Empty(t, table.Data)
}

// 1.6: AICR labels an output app.kubernetes.io/name aicr, component and version; as the
// operator's artifacts have no kind or version methods, the simulator labels them Snapshot and
// unknown, the label keys the documented ConfigMap has, and the operator's reader takes
// unknown for no version: the version is the artifact's own, none for the upgrade-check report.
func TestFact1_6_OutputLabels(t *testing.T) {
	t.Parallel()
	labels := jobexec.OutputLabels()
	for p, cm := range referenceConfigMaps(t) {
		assert.ElementsMatch(t, mapKeys(cm.Labels), mapKeys(labels), p)
		assert.Equal(t, cm.Labels["app.kubernetes.io/name"], labels["app.kubernetes.io/name"], p)
	}
	assert.Equal(t, "Snapshot", labels["app.kubernetes.io/component"])
	assert.Equal(t, jobs.VersionUnknown, labels[jobs.VersionLabel])
	f := fixture(t)
	for _, kind := range outputStages {
		s := startStage(t, kind)
		_, st, err := s.succeed(t, labels, s.played(t, f))
		require.NoError(t, err, kind)
		want := f.Version
		if kind == ports.JobUpgradeCheck {
			want = ""
		}
		assert.Equal(t, want, st.AICRVersion, kind)
	}
}

func mapKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// 1.7: only a snapshot the CLI relays from its own agent is labelled with the document's kind
// and version. The operator never relays: its snapshot Job is the agent (AICR_AGENT_MODE=true)
// writing its -o itself. Were a relayed output read, the reader would take its version label,
// which agrees with the document's, and refuse a label naming another version.
func TestFact1_7_RelayedSnapshotLabels(t *testing.T) {
	t.Parallel()
	s := startStage(t, ports.JobSnapshot)
	assert.Contains(t, s.job.Spec.Template.Spec.Containers[0].Env, corev1.EnvVar{Name: jobs.AgentModeEnv, Value: "true"})
	assert.Equal(t, "snapshot", jobexec.AICRArgs(s.job)[1])
	f := fixture(t)
	relayed := map[string]string{"app.kubernetes.io/name": "aicr", "app.kubernetes.io/component": "Snapshot", jobs.VersionLabel: f.Version}
	_, st, err := s.succeed(t, relayed, s.played(t, f))
	require.NoError(t, err)
	assert.Equal(t, f.Version, st.AICRVersion)
	other := startStage(t, ports.JobSnapshot)
	relayed[jobs.VersionLabel] = "v0.0.1"
	_, _, err = other.succeed(t, relayed, other.played(t, f))
	require.ErrorIs(t, err, ports.ErrUntrustedOutput)
}

// 1.8: every Job the operator runs (snapshot in agent mode, recipe, upgrade-check, validate)
// gets the labels Snapshot/unknown: the simulator labels each stage's output so, and the
// reader takes none of them for a version.
func TestFact1_8_LabelsPerStage(t *testing.T) {
	t.Parallel()
	f := fixture(t)
	for _, kind := range outputStages {
		s := startStage(t, kind)
		res := f.Result(kind)
		res.Version = ""
		data, err := jobexec.OutputData(s.job, res, time.Now())
		require.NoError(t, err)
		stripVersion(t, data)
		_, st, err := s.succeed(t, jobexec.OutputLabels(), data)
		require.NoError(t, err, kind)
		assert.Empty(t, st.AICRVersion, "%s: the label unknown is no version", kind)
	}
}

// stripVersion removes the version the artifact records from the played data, so only the
// labels could report one.
func stripVersion(t *testing.T, data map[string]string) {
	t.Helper()
	for _, k := range jobs.ArtifactKeys {
		raw, ok := data[k]
		if !ok {
			continue
		}
		var doc map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(raw), &doc))
		if md, ok := doc["metadata"].(map[string]any); ok {
			delete(md, "version")
		}
		if results, ok := doc["results"].(map[string]any); ok {
			if tool, ok := results["tool"].(map[string]any); ok {
				delete(tool, "version")
			}
		}
		out, err := yaml.Marshal(doc)
		require.NoError(t, err)
		data[k] = string(out)
	}
}

// 1.9: AICR's docs show the snapshot ConfigMap labelled with the AICR version; the code
// labels it so only when the CLI relays. The documented version is a placeholder, not a
// version; the simulator labels as the code does (unknown).
func TestFact1_9_DocumentedVersionLabel(t *testing.T) {
	t.Parallel()
	for p, cm := range referenceConfigMaps(t) {
		documented := cm.Labels[jobs.VersionLabel]
		assert.Regexp(t, `^<.*>$`, documented, "%s: the docs name no concrete version", p)
		assert.NotEqual(t, documented, jobexec.OutputLabels()[jobs.VersionLabel])
		assert.Equal(t, cm.Labels["app.kubernetes.io/component"], jobexec.OutputLabels()["app.kubernetes.io/component"], p)
	}
}
