package v1alpha1_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
)

// TestUnmodeledMembersRoundTrip: members of an owned object the types do not model are
// kept on decode, emitted again on encode and copied by DeepCopy; matching is
// case-sensitive, as the API machinery decodes.
func TestUnmodeledMembersRoundTrip(t *testing.T) {
	t.Parallel()
	in := `{"spec":{"project":"aicr",
	  "source":{"repoURL":"oci://r/c","RepoURL":"oci://evil","helm":{"releaseName":"x","parameters":[{"name":"a","value":"1"}]}},
	  "destination":{"namespace":"ns","name":"other"},
	  "syncPolicy":{"automated":{"prune":true,"allowEmpty":true},"retry":{"limit":2}}}}`
	var app argov1.Application
	require.NoError(t, json.Unmarshal([]byte(in), &app))
	src := app.Spec.Source
	assert.Equal(t, "oci://r/c", src.RepoURL)
	assert.JSONEq(t, `"oci://evil"`, string(src.Unmodeled["RepoURL"]))
	assert.JSONEq(t, `[{"name":"a","value":"1"}]`, string(src.Helm.Unmodeled["parameters"]))
	assert.JSONEq(t, `"other"`, string(app.Spec.Destination.Unmodeled["name"]))
	assert.JSONEq(t, `{"limit":2}`, string(app.Spec.SyncPolicy.Unmodeled["retry"]))
	assert.JSONEq(t, `true`, string(app.Spec.SyncPolicy.Automated.Unmodeled["allowEmpty"]))
	assert.NotContains(t, src.Unmodeled, "repoURL")

	out, err := json.Marshal(app.Spec)
	require.NoError(t, err)
	var want, got map[string]any
	require.NoError(t, json.Unmarshal([]byte(in), &want))
	require.NoError(t, json.Unmarshal(out, &got))
	assert.Equal(t, want["spec"], got)

	cp := app.DeepCopy()
	cp.Spec.Source.Helm.Unmodeled["parameters"][2] = 'X'
	assert.JSONEq(t, `[{"name":"a","value":"1"}]`, string(src.Helm.Unmodeled["parameters"]), "DeepCopy copies the members")

	var plain argov1.ApplicationSource
	require.NoError(t, json.Unmarshal([]byte(`{"repoURL":"oci://r/c"}`), &plain))
	assert.Nil(t, plain.Unmodeled)
}
