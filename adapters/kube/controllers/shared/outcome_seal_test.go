package shared

import (
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	aicrv1alpha1 "github.com/NVIDIA/aicr/adapters/kube/api/v1alpha1"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/sealtest"
)

func endedRollout(name, uid, outcome, message string) *aicrv1alpha1.RuntimeRollout {
	return &aicrv1alpha1.RuntimeRollout{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + uid),
		Labels:      map[string]string{aicrv1alpha1.LabelOutcome: outcome},
		Annotations: map[string]string{aicrv1alpha1.AnnotationOutcomeMessage: message}}}
}

// TestVerifyOutcome_OnlyTheSealedOutcomeOfThatRollout: the outcome the operator sealed verifies;
// another outcome or message under that seal, the seal copied to another rollout (or the same
// name recreated) and no seal at all do not.
func TestVerifyOutcome_OnlyTheSealedOutcomeOfThatRollout(t *testing.T) {
	s := sealtest.New()
	ro := endedRollout("ro-1", "1", "Succeeded", "rolled out")
	SealOutcome(s, ro)
	if err := VerifyOutcome(s, ro); err != nil {
		t.Fatalf("the operator's own seal: %v", err)
	}
	seal := ro.Annotations[aicrv1alpha1.AnnotationSeal]
	forged := map[string]*aicrv1alpha1.RuntimeRollout{
		"another outcome": endedRollout("ro-1", "1", "Failed", "rolled out"),
		"another message": endedRollout("ro-1", "1", "Succeeded", "validated"),
		"another rollout": endedRollout("ro-2", "1", "Succeeded", "rolled out"),
		"recreated":       endedRollout("ro-1", "2", "Succeeded", "rolled out"),
	}
	for name, f := range forged {
		f.Annotations[aicrv1alpha1.AnnotationSeal] = seal
		if err := VerifyOutcome(s, f); !errors.Is(err, ports.ErrBadSeal) {
			t.Errorf("%s: VerifyOutcome = %v, want ErrBadSeal", name, err)
		}
	}
	if err := VerifyOutcome(s, endedRollout("ro-1", "1", "Succeeded", "rolled out")); !errors.Is(err, ports.ErrBadSeal) {
		t.Errorf("no seal: VerifyOutcome = %v, want ErrBadSeal", err)
	}
}
