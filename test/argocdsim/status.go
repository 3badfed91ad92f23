package argocdsim

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
)

// status returns the status Argo CD reports for app's current spec in mode m.
func (s *Sim) status(app *argov1.Application, m Mode) argov1.ApplicationStatus {
	now := metav1.NewTime(s.clock.Now())
	source := *app.Spec.Source.DeepCopy()
	st := argov1.ApplicationStatus{
		Sync: argov1.SyncStatus{
			Status:     argov1.SyncStatusCodeSynced,
			ComparedTo: argov1.ComparedTo{Source: source, Destination: app.Spec.Destination},
			Revision:   source.TargetRevision,
		},
		Health:       argov1.AppHealthStatus{Status: "Healthy"},
		ReconciledAt: &now,
		SourceType:   argov1.ApplicationSourceTypeHelm,
		OperationState: &argov1.OperationState{
			Operation:  argov1.Operation{Sync: &argov1.SyncOperation{Revision: source.TargetRevision}},
			Phase:      "Succeeded",
			Message:    "successfully synced (all tasks run)",
			StartedAt:  now,
			FinishedAt: &now,
		},
	}
	switch m {
	case Healthy:
	case Degraded:
		st.Health = argov1.AppHealthStatus{Status: "Degraded"}
		st.Resources = []argov1.ResourceStatus{workload(app)}
	case Progressing:
		st.Health = argov1.AppHealthStatus{Status: "Progressing"}
		st.Resources = []argov1.ResourceStatus{workload(app)}
	case OutOfSync:
		st.Sync.Status = argov1.SyncStatusCodeOutOfSync
	case SyncFailed:
		st.Sync.Status = argov1.SyncStatusCodeOutOfSync
		st.Health = argov1.AppHealthStatus{Status: "Missing"}
		st.OperationState.Phase, st.OperationState.Message = "Failed", FailureMessage
	case Syncing:
		st.Sync.Status = argov1.SyncStatusCodeOutOfSync
		st.Health = argov1.AppHealthStatus{Status: "Progressing"}
		st.OperationState.Phase, st.OperationState.Message, st.OperationState.FinishedAt = "Running", "", nil
	}
	return st
}

// workload is the release's Deployment as Argo CD v3 lists it in the Application: synced, with
// no health, since v3 keeps resource health out of the Application by default
// (controller.resource.health.persist is false; the end-to-end suite found the real one so).
func workload(app *argov1.Application) argov1.ResourceStatus {
	return argov1.ResourceStatus{
		Group: "apps", Version: "v1", Kind: "Deployment", Namespace: app.Spec.Destination.Namespace,
		Name: app.Spec.Source.Chart, Status: argov1.SyncStatusCodeSynced,
	}
}
