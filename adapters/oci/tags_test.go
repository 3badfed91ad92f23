package oci_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/NVIDIA/aicr/adapters/oci"
	"github.com/NVIDIA/aicr/ports"
)

// tagsOf lists the tags of <registry>/bundles/cluster.
func tagsOf(t *testing.T, repo *remote.Repository) []string {
	t.Helper()
	var tags []string
	require.NoError(t, repo.Tags(context.Background(), "", func(page []string) error {
		tags = append(tags, page...)
		return nil
	}))
	return tags
}

func TestContentTags_AreUniqueAndNeverMove(t *testing.T) {
	t.Parallel()
	longRollout := "rollout-" + strings.Repeat("a", 200) + "-1"
	tests := []struct {
		name string
		// push stores variant n of the artifact under one name (a rollout
		// name reused after retention, one plan digest).
		push   func(ctx context.Context, reg *oci.Registry, n int) (ports.Digest, error)
		prefix string
	}{
		{
			name: "evidence of a reused rollout name",
			push: func(ctx context.Context, reg *oci.Registry, n int) (ports.Digest, error) {
				ev := evidenceFixture()
				ev.Report = []byte(`{"run":` + strings.Repeat("1", n+1) + `}`)
				return reg.PushEvidence(ctx, ev)
			},
			prefix: "evidence-rollout-3f9a1c0d2b7e4a51-1-",
		},
		{
			name: "evidence of a rollout name longer than a tag",
			push: func(ctx context.Context, reg *oci.Registry, n int) (ports.Digest, error) {
				ev := evidenceFixture()
				ev.Rollout, ev.Report = longRollout, []byte(strings.Repeat("r", n+1))
				return reg.PushEvidence(ctx, ev)
			},
			prefix: "evidence-rollout-aaaa",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			reg, _ := newRegistry(t)
			repo := ociRepo(t, reg.Base()+"/bundles/cluster", http.DefaultClient, true)
			tagFor := func(d ports.Digest) string {
				t.Helper()
				for _, tag := range tagsOf(t, repo) {
					if strings.HasSuffix(tag, "-"+strings.TrimPrefix(string(d), "sha256:")) {
						return tag
					}
				}
				require.Failf(t, "no tag", "for %s", d)
				return ""
			}

			first, err := tt.push(ctx, reg, 0)
			require.NoError(t, err)
			second, err := tt.push(ctx, reg, 1)
			require.NoError(t, err)
			require.NotEqual(t, first, second)
			for _, d := range []ports.Digest{first, second} {
				tag := tagFor(d)
				assert.True(t, strings.HasPrefix(tag, tt.prefix), tag)
				assert.LessOrEqual(t, len(tag), 128, tag)
				held, rerr := reg.Resolve(ctx, reg.Base()+"/bundles/cluster:"+tag)
				require.NoError(t, rerr)
				assert.Equal(t, d, held, "a later push never moves an earlier tag")
			}

			tag := tagFor(first)
			pushOCIChart(t, repo, "foreign", tag, chartArchive(t, "foreign", "1.0.0", "x"), nil)
			foreign, err := reg.Resolve(ctx, reg.Base()+"/bundles/cluster:"+tag)
			require.NoError(t, err)
			_, err = tt.push(ctx, reg, 0)
			require.ErrorIs(t, err, ports.ErrForeignObject, "a tag holding other content is refused")
			held, err := reg.Resolve(ctx, reg.Base()+"/bundles/cluster:"+tag)
			require.NoError(t, err)
			assert.Equal(t, foreign, held, "and never overwritten")
		})
	}
}
