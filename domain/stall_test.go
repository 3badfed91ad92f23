package domain_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/mock/gomock"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// stallCase drives the domain into one stall. Cases that surface in the
// rollout state machine go through Advance with mocked ports; the others call
// the domain function that decides them (with the ports they need mocked).
type stallCase struct {
	name string
	want domain.StallReason
	run  func(t *testing.T, p domain.Ports, r recorders) *domain.Stall
}

func advanceStall(s domain.RolloutSpec, st domain.RolloutStatus, mutate func(*domain.Environment),
	expect func(r recorders)) func(t *testing.T, p domain.Ports, r recorders) *domain.Stall {
	return func(t *testing.T, p domain.Ports, r recorders) *domain.Stall {
		t.Helper()
		e := env(t)
		if mutate != nil {
			mutate(&e)
		}
		r.clock.Now().Return(t0.Add(time.Hour)).AnyTimes()
		if expect != nil {
			expect(r)
		}
		return advance(t, p, rollout(t, s, st), e).Stall
	}
}

// suspensionStall runs the runtime's engine suspension (spec.suspendEngine) as the runtime
// controller does: DecideSuspension over the live objects, Suspend through the port for each
// write, SuspensionRefused on its error.
func suspensionStall(ref ports.ReleaseRef, refusal error) func(t *testing.T, p domain.Ports, r recorders) *domain.Stall {
	return func(t *testing.T, p domain.Ports, r recorders) *domain.Stall {
		t.Helper()
		live := written(ref, "sha256:old", true)
		owner := live.Owner
		r.engine.Suspend(gomock.Any(), ref, owner, true).Return(fmt.Errorf("application is syncing: %w", refusal))
		d := domain.DecideSuspension(domain.SuspensionInput{Suspend: true, RuntimeUID: uid, Live: []ports.ReleaseStatus{live}})
		require.Equal(t, []ports.ReleaseRef{ref}, d.Writes)
		s, err := domain.SuspensionRefused(ref, true, p.Engine.Suspend(context.Background(), ref, owner, true))
		require.NoError(t, err)
		return s
	}
}

func stallErrorOf(t *testing.T, err error) *domain.Stall {
	t.Helper()
	var se *domain.StallError
	require.ErrorAs(t, err, &se)
	return &se.Stall
}

func pendingReady(r recorders) {
	r.engine.Check(gomock.Any()).Return(nil)
	r.engine.List(gomock.Any()).Return(nil, nil)
}

func TestStallReasons(t *testing.T) {
	t.Parallel()
	tests := rolloutStallCases(t)
	tests = append(tests, resolverStallCases()...)

	covered := map[domain.StallReason]bool{}
	for _, tt := range tests {
		covered[tt.want] = true
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, r := newPorts(t)
			got := tt.run(t, p, r)
			require.NotNil(t, got, "expected a stall")
			assert.Equal(t, tt.want, got.Reason())
			assert.NotEmpty(t, got.Message())
			assert.NotRegexp(t, `\.$`, got.Message(), "messages have no trailing period")
		})
	}

	t.Run("every StallReason has a case", func(t *testing.T) {
		t.Parallel()
		for _, r := range domain.StallReasons() {
			assert.Truef(t, covered[r], "no test case for stall reason %q", r)
		}
		assert.Len(t, covered, len(domain.StallReasons()), "a case names a reason outside StallReasons()")
	})
}

func rolloutStallCases(t *testing.T) []stallCase {
	t.Helper()
	base := spec(t)
	gpu := ref("gpu-operator")
	cm := ref("cert-manager")
	return []stallCase{
		{"EngineMissing when the engine CRDs are absent", domain.StallEngineMissing,
			advanceStall(base, domain.RolloutStatus{}, nil, func(r recorders) {
				r.engine.Check(gomock.Any()).Return(fmt.Errorf("no kind Application: %w", ports.ErrEngineMissing))
			})},
		{"ProjectMissing when the AppProject is absent", domain.StallProjectMissing,
			advanceStall(base, domain.RolloutStatus{}, nil, func(r recorders) {
				r.engine.Check(gomock.Any()).Return(ports.ErrProjectMissing)
			})},
		{"Unauthorized when the engine denies the operator", domain.StallUnauthorized,
			advanceStall(base, domain.RolloutStatus{}, nil, func(r recorders) {
				r.engine.Check(gomock.Any()).Return(fmt.Errorf("forbidden: %w", ports.ErrUnauthorized))
			})},
		{"InventoryDrift when the live inventory changed before the first step", domain.StallInventoryDrift,
			advanceStall(spec(t, func(s *domain.RolloutSpec) { s.StartingInventoryDigest = "sha256:00" }),
				domain.RolloutStatus{}, nil, func(r recorders) {
					r.engine.Check(gomock.Any()).Return(nil)
					r.engine.List(gomock.Any()).Return([]ports.ReleaseStatus{written(cm, "sha256:old", true)}, nil)
				})},
		{"AwaitingApproval when approval is required and missing", domain.StallAwaitingApproval,
			advanceStall(spec(t, needsApproval), domain.RolloutStatus{}, nil, pendingReady)},
		{"RolloutExpired when the deadline passes without approval", domain.StallRolloutExpired,
			advanceStall(spec(t, needsApproval, func(s *domain.RolloutSpec) { s.Deadline = t0.Add(time.Minute) }),
				domain.RolloutStatus{Phase: domain.PhaseAwaitingApproval}, nil, nil)},
		{"RolloutRevoked when the approval is revoked before an unstarted step", domain.StallRolloutRevoked,
			advanceStall(spec(t, revoked), progressing(1), nil, func(r recorders) {
				r.engine.Status(gomock.Any(), gpu).Return(ports.ReleaseStatus{}, ports.ErrTargetNotFound)
			})},
		{"AwaitingAcknowledgement before a manual step is applied", domain.StallAwaitingAcknowledgement,
			advanceStall(spec(t, approved, func(s *domain.RolloutSpec) { s.Steps[1].AcknowledgeBeforeApply = true }),
				progressing(1), nil, func(r recorders) {
					r.engine.Status(gomock.Any(), gpu).Return(ports.ReleaseStatus{}, ports.ErrTargetNotFound)
				})},
		{"OutsideChangeWindow when a disruptive step waits for a window", domain.StallOutsideChangeWindow,
			advanceStall(spec(t, disruptiveGPU), progressing(1), mondayWindow("UTC"), gpuMissing)},
		{"ProtectedWorkloadsRunning when a training pod runs on an accelerated node", domain.StallProtectedWorkloadsRunning,
			advanceStall(spec(t, disruptiveGPU), progressing(1), protectTraining, func(r recorders) {
				gpuMissing(r)
				r.work.Running(gomock.Any(), gomock.Any()).Return([]ports.Workload{{Namespace: "ml", Name: "train-0", Node: "gpu-1"}}, nil)
			})},
		{"ChangePolicyInvalid when a window names an unknown time zone", domain.StallChangePolicyInvalid,
			advanceStall(spec(t, disruptiveGPU), progressing(1), mondayWindow("Mars/Olympus_Mons"), gpuMissing)},
		{"TransitionBlocked when upgrade-check blocks a step", domain.StallTransitionBlocked,
			advanceStall(spec(t, func(s *domain.RolloutSpec) { s.Steps[1].Assessment = ports.VerdictBlocked }),
				domain.RolloutStatus{}, nil, nil)},
		{"StepUnknown when a step names an unknown operation", domain.StallStepUnknown,
			advanceStall(spec(t, func(s *domain.RolloutSpec) { s.Steps[0].Operation = "Rollback" }),
				progressing(0), nil, nil)},
		{"MovedReleaseMissing when an upgraded release has no engine object", domain.StallMovedReleaseMissing,
			advanceStall(spec(t, func(s *domain.RolloutSpec) { s.Steps[0].Operation = domain.OpUpgrade }),
				progressing(0), nil, func(r recorders) {
					r.engine.Status(gomock.Any(), cm).Return(ports.ReleaseStatus{}, ports.ErrTargetNotFound)
				})},
		{"ForeignObject when an object the operator did not create is in the way", domain.StallForeignObject,
			advanceStall(base, progressing(0), nil, func(r recorders) {
				r.engine.Status(gomock.Any(), cm).Return(ports.ReleaseStatus{Ref: cm}, nil)
			})},
		{"EngineObjectContested when the engine object was changed back after every write of its step",
			domain.StallEngineObjectContested, contestedStall(base, cm)},
		{"EngineSuspensionRefused when the engine cannot suspend a release while it syncs", domain.StallEngineSuspensionRefused,
			suspensionStall(cm, ports.ErrSuspensionRefused)},
		{"RolloutFailed when a step's sync fails", domain.StallRolloutFailed,
			advanceStall(base, inFlight(0, t0), nil, func(r recorders) {
				st := written(cm, base.ToPlanDigest, false)
				st.Operation, st.Message, st.LastSyncAt = ports.OperationFailed, "webhook denied", t0
				r.engine.Status(gomock.Any(), cm).Return(st, nil)
			})},
		{"RegistryCredentialsStale when evidence cannot be pushed with expired credentials",
			domain.StallRegistryCredentialsStale,
			advanceStall(base, validating(),
				func(e *domain.Environment) { e.ValidationRequired = true }, func(r recorders) {
					run := ports.JobRef{Name: validationRun}
					r.jobs.Status(gomock.Any(), run).Return(ports.JobStatus{State: ports.JobSucceeded}, nil)
					r.jobs.Output(gomock.Any(), run).Return(output(ctrf(1, 1, 0, 0, 0, "a", "passed")), nil)
					stepsWritten(r, base.ToPlanDigest)
					r.engine.Status(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, ref ports.ReleaseRef) (ports.ReleaseStatus, error) {
						return written(ref, base.ToPlanDigest, true), nil
					}).AnyTimes()
					r.reg.PushEvidence(gomock.Any(), gomock.Any()).Return(ports.Digest(""), ports.ErrCredentialsStale)
				})},
		{"PlanOfAnotherRuntime when the target plan records another runtime", domain.StallPlanOfAnotherRuntime,
			advanceStall(base, domain.RolloutStatus{}, func(e *domain.Environment) {
				other := *e.Target
				other.RuntimeUID = "another"
				e.Target = &other
			}, nil)},
		{"PlanWithoutRecipe when validation is required and the plan was rebuilt", domain.StallPlanWithoutRecipe,
			advanceStall(base, domain.RolloutStatus{}, func(e *domain.Environment) {
				rebuilt := *e.Target
				rebuilt.HasRecipe, rebuilt.Source = false, domain.SourceRebuilt
				e.Target, e.ValidationRequired = &rebuilt, true
			}, nil)},
		{"PlanWithoutRecipe when validation is required and the plan's validation recipe was not read (PLAN-2)",
			domain.StallPlanWithoutRecipe,
			advanceStall(base, domain.RolloutStatus{}, func(e *domain.Environment) {
				e.ValidationRecipe, e.ValidationRequired = nil, true
			}, nil)},
		{"PlanWithoutRecipe when validation runs and the plan's validation recipe was not read", domain.StallPlanWithoutRecipe,
			advanceStall(base, validating(), func(e *domain.Environment) { e.ValidationRecipe = nil }, nil)},
		{"ValidationUnavailable when validation is required but disabled in the chart",
			domain.StallValidationUnavailable,
			advanceStall(base, domain.RolloutStatus{}, func(e *domain.Environment) {
				e.ValidationRequired, e.ValidationEnabled = true, false
			}, nil)},
	}
}

func resolverStallCases() []stallCase {
	nodes := func(labels ...map[string]string) []domain.Node {
		out := make([]domain.Node, len(labels))
		for i, l := range labels {
			out[i] = domain.Node{Name: fmt.Sprintf("n%d", i), Labels: l}
		}
		return out
	}
	pl := domain.Placement{System: domain.NodeSelector{"pool": "system"}, Accelerated: domain.NodeSelector{"pool": "gpu"}}
	gpuNode := func(product string) map[string]string {
		return map[string]string{"pool": "gpu", "nvidia.com/gpu.product": product}
	}
	pure := func(f func() *domain.Stall) func(*testing.T, domain.Ports, recorders) *domain.Stall {
		return func(*testing.T, domain.Ports, recorders) *domain.Stall { return f() }
	}
	return []stallCase{
		{"EngineObjectDrifted when an engine object of the active plan asks for another spec", domain.StallEngineObjectDrifted,
			func(t *testing.T, _ domain.Ports, _ recorders) *domain.Stall {
				t.Helper()
				p := targetPlan(t)
				live := []ports.ReleaseStatus{written(ref("gpu-operator"), p.Digest, true)}
				live[0].SpecDigest = "sha256:edited"
				want := map[ports.ReleaseRef]string{ref("gpu-operator"): planned(ref("gpu-operator"))}
				return domain.SpecDrifted(p.Digest, domain.DriftedReleases(p, uid, live, want))
			}},
		{"AdmissionPolicyMissing when a chart policy or binding does not enforce", domain.StallAdmissionPolicyMissing,
			pure(func() *domain.Stall {
				return domain.AdmissionPolicyMissing([]string{"ValidatingAdmissionPolicyBinding aicr-operator-plans is missing"})
			})},
		{"OutcomeUnverified when an unsealed success is not live on the engine", domain.StallOutcomeUnverified,
			pure(func() *domain.Stall { return domain.ConfirmSucceeded("rollout-1", "uid-1", "sha256:0a", nil) })},
		{"NodeGroupEmpty when no node is accelerated", domain.StallNodeGroupEmpty, pure(func() *domain.Stall {
			return domain.CheckPlacement(nodes(map[string]string{"pool": "system"}), pl)
		})},
		{"PlacementOverlap when a node is in both groups", domain.StallPlacementOverlap, pure(func() *domain.Stall {
			both := domain.Placement{System: domain.NodeSelector{"a": "1"}, Accelerated: domain.NodeSelector{"b": "1"}}
			return domain.CheckPlacement(nodes(map[string]string{"a": "1", "b": "1"}), both)
		})},
		{"AcceleratedGroupHeterogeneous when GPU products differ", domain.StallAcceleratedGroupHeterogeneous,
			pure(func() *domain.Stall {
				return domain.CheckPlacement(nodes(map[string]string{"pool": "system"},
					gpuNode("NVIDIA-H100-80GB-HBM3"), gpuNode("NVIDIA-A100-SXM4-80GB")), pl)
			})},
		{"InvalidPlacement when a selector key is not a label key", domain.StallInvalidPlacement,
			pure(func() *domain.Stall {
				return domain.CheckPlacement(nil, domain.Placement{System: domain.NodeSelector{"bad key!": "x"},
					Accelerated: domain.NodeSelector{"pool": "gpu"}})
			})},
		{"SnapshotIncomplete when the snapshot lacks the OS", domain.StallSnapshotIncomplete,
			pure(func() *domain.Stall {
				return domain.CheckSnapshot(map[string]string{"os": "ubuntu"}, domain.SnapshotFacts{"accelerator": "h100"})
			})},
		{"CriteriaConflict when the snapshot measures another accelerator", domain.StallCriteriaConflict,
			pure(func() *domain.Stall {
				return domain.CheckSnapshot(map[string]string{"accelerator": "h100"}, domain.SnapshotFacts{"accelerator": "gb200"})
			})},
		{"OverridePathUnknown when an override names a missing component", domain.StallOverridePathUnknown,
			pure(func() *domain.Stall {
				unlisted := domain.UnlistedComponents([]domain.Override{{Component: "nope", Path: "a.b", Value: 1.0}},
					map[string]bool{"gpu-operator": true})
				return domain.RejectedOverride(domain.StallFromCondition(string(domain.StallAICRInvalidRequest), `invalid --set-json "nope:a.b=1": unknown component "nope"`), unlisted)
			})},
		{"InvalidOverride when an override path has an empty key", domain.StallInvalidOverride,
			pure(func() *domain.Stall {
				return domain.CheckOverrides([]domain.Override{{Component: "gpu-operator", Path: "driver..version"}})
			})},
		{"NamespaceNotAllowed when a release targets an unlisted namespace", domain.StallNamespaceNotAllowed,
			func(t *testing.T, _ domain.Ports, _ recorders) *domain.Stall {
				return domain.CheckNamespaces(targetPlan(t), []string{"cert-manager"})
			}},
		{"ChartSourceUnsupported when a chart comes from plain http", domain.StallChartSourceUnsupported,
			func(t *testing.T, _ domain.Ports, _ recorders) *domain.Stall {
				b := smallBundle()
				b.Releases[0].Chart.Repository = "http://charts.example"
				_, err := domain.BuildPlan(domain.PlanInput{Bundle: b})
				return stallErrorOf(t, err)
			}},
		{"ContentTooLarge when a bundle has 129 releases", domain.StallContentTooLarge,
			func(t *testing.T, _ domain.Ports, _ recorders) *domain.Stall {
				b := smallBundle()
				for i := len(b.Releases); i <= domain.MaxReleases; i++ {
					b.Releases = append(b.Releases, release(fmt.Sprintf("r%d", i)))
				}
				_, err := domain.BuildPlan(domain.PlanInput{Bundle: b})
				return stallErrorOf(t, err)
			}},
		{"Conflict when a plan ConfigMap exists with another digest", domain.StallConflict,
			func(t *testing.T, _ domain.Ports, _ recorders) *domain.Stall {
				_, s := domain.DecidePlanWrite(domain.StoredPlan{DigestAnnotation: "sha256:other"}, targetPlan(t))
				return s
			}},
		{"Conflict when a part of a recorded plan holds other content", domain.StallConflict,
			pure(func() *domain.Stall {
				return domain.DecidePlanParts("sha256:0a", []domain.PlanPart{{Kind: domain.PartValues, Name: "aicr-values-0a",
					State: domain.PartForeign}}).Stall
			})},
		{"PlanUnreadable when a plan resolved again still lacks its values", domain.StallPlanUnreadable,
			pure(func() *domain.Stall {
				return domain.StillLost("sha256:0a", "aicr-plan-0a", []domain.PlanPart{{Kind: domain.PartValues, State: domain.PartLost}})
			})},
		{"PlanWithoutRecipe when a plan resolved again still lacks its recipe", domain.StallPlanWithoutRecipe,
			pure(func() *domain.Stall {
				return domain.StillLost("sha256:0a", "aicr-plan-0a", []domain.PlanPart{{Kind: domain.PartRecipe, State: domain.PartLost}})
			})},
		{"PlanUnreadable when the schema label and payload disagree", domain.StallPlanUnreadable,
			pure(func() *domain.Stall {
				return domain.CheckPlanReadable(domain.StoredPlan{SchemaLabel: "2", PayloadSchema: 1}, uid)
			})},
		{"AICRInvalidRequest when the root cause hides behind INTERNAL", domain.StallAICRInvalidRequest,
			pure(func() *domain.Stall {
				line := `{"msg":"command failed","exitCode":8,"error":"[INTERNAL] error building recipe: [INVALID_REQUEST] invalid service type: foo"}`
				return domain.ClassifyAICRExit(8, line).Stall
			})},
		{"AICRNotFound on exit code 3", domain.StallAICRNotFound,
			pure(func() *domain.Stall { return domain.ClassifyAICRExit(3, "").Stall })},
		{"AICRUnauthorized on exit code 4", domain.StallAICRUnauthorized,
			pure(func() *domain.Stall { return domain.ClassifyAICRExit(4, "").Stall })},
		{"AICRTimeout on exit code 5", domain.StallAICRTimeout,
			pure(func() *domain.Stall { return domain.ClassifyAICRExit(5, "").Stall })},
		{"AICRInternal on exit code 1", domain.StallAICRInternal,
			pure(func() *domain.Stall { return domain.ClassifyAICRExit(1, "").Stall })},
		{"JobPodNotRunning when a Job's pod waits past the bound", domain.StallJobPodNotRunning,
			pure(func() *domain.Stall {
				w := &ports.JobWaiting{Reason: "Unschedulable", Message: "0/3 nodes are available", Since: t0}
				return domain.JobWaitStall("aicr recipe job r", w, t0.Add(domain.JobPodWaitBound+domain.ClockSkewTolerance))
			})},
		{"JobUndeletable when a Job's deletion takes past the bound", domain.StallJobUndeletable,
			pure(func() *domain.Stall {
				return domain.JobDeletionStall("aicr recipe job r", t0, t0.Add(domain.JobDeletionBound+domain.ClockSkewTolerance))
			})},
		{"JobPodKilled when a Job's last run was killed", domain.StallJobPodKilled,
			pure(func() *domain.Stall {
				return domain.JobKilledStall("aicr recipe job r-3", ports.JobStatus{State: ports.JobFailed, ExitCode: 137})
			})},
		{"JobOutputLost when a Job's last run lost its output", domain.StallJobOutputLost,
			pure(func() *domain.Stall { return domain.JobOutputLostStall("aicr recipe job r-3", ports.ErrOutputLost) })},
		{"AICRVersionMismatch when a job reports another version", domain.StallAICRVersionMismatch,
			pure(func() *domain.Stall { return domain.CheckAICRVersion("1.1.0", "v1.2.0") })},
		{"AICRArtifactUnsupported when the bundle is a v0.x render", domain.StallAICRArtifactUnsupported,
			func(t *testing.T, _ domain.Ports, _ recorders) *domain.Stall {
				_, err := domain.BuildPlan(domain.PlanInput{Bundle: ports.Bundle{Layout: ports.LayoutLegacyV0, AICRVersion: "0.11.1"}})
				return stallErrorOf(t, err)
			}},
		{"RegistryCredentialsUnavailable when charts cannot be pinned", domain.StallRegistryCredentialsUnavailable,
			func(t *testing.T, p domain.Ports, r recorders) *domain.Stall {
				r.reg.MirrorChart(gomock.Any(), gomock.Any()).
					Return(ports.PinnedChart{}, fmt.Errorf("ecr token: %w", ports.ErrCredentialsUnavailable))
				s, err := domain.PublishCharts(context.Background(), p.Registry, targetPlan(t), nil, domain.Publish{})
				require.NoError(t, err)
				return s
			}},
	}
}

// TestAdvance_BlockedRolloutSupersededWhenTheTargetMoves: a rollout a pre-check stops runs no
// step, so a moved target ends it Superseded instead of holding the runtime until someone
// deletes it (RO-1: no new rollout while one is in progress).
func TestAdvance_BlockedRolloutSupersededWhenTheTargetMoves(t *testing.T) {
	t.Parallel()
	moved := func(e *domain.Environment) { e.TargetPlanDigest = "sha256:newer" }
	for _, tt := range []struct {
		name   string
		spec   domain.RolloutSpec
		status domain.RolloutStatus
		mutate func(*domain.Environment)
	}{
		{"TransitionBlocked", spec(t, func(s *domain.RolloutSpec) { s.Steps[1].Assessment = ports.VerdictBlocked }), domain.RolloutStatus{}, moved},
		{"StepUnknown", spec(t, func(s *domain.RolloutSpec) { s.Steps[0].Operation = "Rollback" }), progressing(0), moved},
		{"PlanWithoutRecipe", spec(t), domain.RolloutStatus{}, func(e *domain.Environment) {
			moved(e)
			e.ValidationRecipe, e.ValidationRequired = nil, true
		}},
		{"ValidationUnavailable", spec(t), domain.RolloutStatus{}, func(e *domain.Environment) {
			moved(e)
			e.ValidationRequired, e.ValidationEnabled = true, false
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, r := newPorts(t)
			r.clock.Now().Return(t0.Add(time.Hour)).AnyTimes()
			e := env(t)
			tt.mutate(&e)
			out := advance(t, p, rollout(t, tt.spec, tt.status), e)
			assert.Equal(t, domain.PhaseSuperseded, out.Phase(), "no engine call expected (strict mocks)")
			assert.True(t, out.Ended)
			assert.Contains(t, out.Status.Message, "the runtime's target is now plan sha256:newer")
		})
	}
}

// disruptiveGPU marks the gpu-operator step (step 2) disruptive.
func disruptiveGPU(s *domain.RolloutSpec) {
	s.Steps[1].Disruption = "gpu-operator runs node-level agents on the accelerated nodes"
}

// mondayWindow allows disruptive steps on Mondays 02:00 to 03:00 in zone only.
func mondayWindow(zone string) func(*domain.Environment) {
	return func(e *domain.Environment) {
		e.ChangePolicy.Windows = []domain.ChangeWindow{{Days: []time.Weekday{time.Monday}, Start: 2 * time.Hour,
			Duration: time.Hour, TimeZone: zone}}
	}
}

// protectTraining protects the Pods labelled app=train on the accelerated nodes.
func protectTraining(e *domain.Environment) {
	e.ChangePolicy.ProtectedPods = "app=train"
	e.AcceleratedNodes = map[string]string{"nodeGroup": "gpu"}
}

func gpuMissing(r recorders) {
	r.engine.Status(gomock.Any(), ref("gpu-operator")).Return(ports.ReleaseStatus{}, ports.ErrTargetNotFound)
}

// Only the change policy's two holds are holds, and each is a wait, not a stall of the runtime.
func TestHeldByChangePolicy(t *testing.T) {
	t.Parallel()
	var held []domain.StallReason
	for _, r := range domain.StallReasons() {
		if r.HeldByChangePolicy() {
			held = append(held, r)
			assert.True(t, r.Waits(), "%s held by the change policy waits", r)
		}
	}
	assert.ElementsMatch(t, []domain.StallReason{domain.StallOutsideChangeWindow, domain.StallProtectedWorkloadsRunning}, held)
}
