package aicrcontract_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/NVIDIA/aicr/adapters/kube/controllers/shared"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/jobexec"
)

// 2.7: `-o oci://<repo>` without a tag is tagged with the CLI version. The simulator pushes an
// untagged destination under its version, a registry port being no tag; the operator names the
// tag of every push (the bundle Job's name and UID), so AICR's default never decides where a
// bundle lands.
func TestFact2_7_OCITagDefaultsToTheVersion(t *testing.T) {
	t.Parallel()
	const version = "v1.1.0"
	for dest, want := range map[string][2]string{
		"registry.example/aicr/bundles/cluster":                     {"registry.example/aicr/bundles/cluster", version},
		"registry.example:5000/aicr/bundles/cluster":                {"registry.example:5000/aicr/bundles/cluster", version},
		"registry.example:5000/aicr/bundles/cluster:aicr-bundle-1a": {"registry.example:5000/aicr/bundles/cluster", "aicr-bundle-1a"},
	} {
		repository, tag := jobexec.OCIReference(dest, version)
		assert.Equal(t, want, [2]string{repository, tag}, dest)
	}

	for _, plainHTTP := range []bool{false, true} {
		args := shared.BundlePushArgs("registry.example:5000/aicr/bundles/cluster", "aicr-bundle-0123456789abcdef", plainHTTP)
		i := slices.Index(args, "-o")
		require.True(t, i >= 0 && i+1 < len(args), "%v", args)
		dest, ok := strings.CutPrefix(args[i+1], "oci://")
		require.True(t, ok, args[i+1])
		_, tag := jobexec.OCIReference(dest, version)
		assert.Equal(t, "aicr-bundle-0123456789abcdef-"+ports.JobUIDArg, tag, "the operator's push names its tag, bound to the Job's run")
		assert.Equal(t, plainHTTP, slices.Contains(args, "--plain-http"))
	}
}
