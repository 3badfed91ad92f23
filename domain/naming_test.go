package domain_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/NVIDIA/aicr/domain"
)

func TestTransitionID(t *testing.T) {
	t.Parallel()
	id := domain.TransitionID(uid, "", "sha256:b")
	assert.Regexp(t, `^[0-9a-f]{16}$`, id)
	assert.Equal(t, id, domain.TransitionID(uid, "", "sha256:b"))
	assert.NotEqual(t, id, domain.TransitionID(uid, "sha256:b", ""), "from and to are not interchangeable")
	assert.NotEqual(t, id, domain.TransitionID(uid+"x", "", "sha256:b"))
}

func TestNextRollout(t *testing.T) {
	t.Parallel()
	tr := domain.TransitionID(uid, "sha256:a", "sha256:b")
	name := func(n string) string { return "rollout-" + tr + "-" + n }
	tests := []struct {
		name       string
		listed     []domain.ListedRollout
		wantName   string
		wantCreate bool
	}{
		{"first rollout", nil, name("1"), true},
		{"after two terminal ones", []domain.ListedRollout{
			{Name: name("1"), RuntimeUID: uid, Transition: tr, Terminal: true},
			{Name: name("3"), RuntimeUID: uid, Transition: tr, Terminal: true},
		}, name("4"), true},
		{"a non-terminal rollout is the one in progress", []domain.ListedRollout{
			{Name: "rollout-ffffffffffffffff-2", RuntimeUID: uid, Transition: "ffffffffffffffff"},
		}, "rollout-ffffffffffffffff-2", false},
		{"other runtimes and transitions do not count", []domain.ListedRollout{
			{Name: name("7"), RuntimeUID: "old-uid", Transition: tr},
			{Name: "rollout-ffffffffffffffff-9", RuntimeUID: uid, Transition: "ffffffffffffffff", Terminal: true},
		}, name("1"), true},
		{"a malformed suffix is ignored", []domain.ListedRollout{
			{Name: name("x"), RuntimeUID: uid, Transition: tr, Terminal: true},
		}, name("1"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, create := domain.NextRollout(uid, "sha256:a", "sha256:b", tt.listed)
			assert.Equal(t, tt.wantName, got)
			assert.Equal(t, tt.wantCreate, create)
		})
	}
}
