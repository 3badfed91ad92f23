package shared

import (
	"context"
	"fmt"
	"maps"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	"github.com/NVIDIA/aicr/domain"
)

// ChartAdmissionPolicies are the ValidatingAdmissionPolicies of the chart, each with a binding
// of the same name, that the operator's trust in what it reads back stands on: approvals and
// outcomes (aicr-operator-approval), plan and kept-result ConfigMaps (aicr-operator-plans), its
// own writes to the ClusterRuntime (aicr-operator-clusterruntime), status of both kinds
// (aicr-operator-status), the Jobs, Pods and outputs of the AICR Job namespaces
// (aicr-operator-job-configmaps, aicr-operator-job-workloads), what `aicr validate` writes
// (aicr-operator-validation-run), the operator's API out of Argo CD's reach
// (aicr-operator-engine-guard), and the chart's RBAC and webhook configurations deleted only by
// chartAdmins (aicr-operator-teardown-guard).
var ChartAdmissionPolicies = []string{
	"aicr-operator-approval", "aicr-operator-plans", "aicr-operator-clusterruntime",
	"aicr-operator-status", "aicr-operator-job-configmaps", "aicr-operator-job-workloads",
	"aicr-operator-validation-run", "aicr-operator-engine-guard", "aicr-operator-teardown-guard",
}

// AdmissionGuard checks that the admission policies the operator relies on are in force: each
// policy exists and fails closed, its binding of the same name binds it to every request it
// matches with the Deny action, and, for a policy with a digest, the two say exactly what the
// chart rendered (AdmissionDigest). An empty guard checks nothing (suites that run
// controllers without the chart).
type AdmissionGuard struct {
	reader   client.Reader
	policies []string
	digests  map[string]string
	crds     *crdCheck
	project  ProjectCheck
}

// ProjectCheck says what is wrong with the engine project (Argo CD: the AppProject) against
// what the chart rendered ("" when nothing is), naming the object; cmd builds it in the
// engine's adapter (argocd.ProjectGuard). An error is transient.
type ProjectCheck func(ctx context.Context) (string, error)

// WithProject returns the guard checking, besides its policies and CRDs, the engine project
// with check (nil: none).
func (g *AdmissionGuard) WithProject(check ProjectCheck) *AdmissionGuard {
	g.project = check
	return g
}

// NewAdmissionGuard returns the guard of policies, read through reader (the manager's client),
// comparing each policy named in digests with its content digest (AdmissionDigest) and each
// CRD named in crdDigests with its schema digest (crdschema.Digest).
func NewAdmissionGuard(reader client.Reader, policies []string, digests, crdDigests map[string]string) *AdmissionGuard {
	return &AdmissionGuard{reader: reader, policies: slices.Clone(policies), digests: maps.Clone(digests),
		crds: newCRDCheck(reader, crdDigests)}
}

// Enabled reports whether the guard checks any policy.
func (g *AdmissionGuard) Enabled() bool { return g != nil && len(g.policies) > 0 }

// Check returns the AdmissionPolicyMissing stall naming every policy that is not in force, every
// CRD and the engine project that are not what the chart rendered, or nil when all are. An API
// error other than NotFound is returned as it is (transient).
func (g *AdmissionGuard) Check(ctx context.Context) (*domain.Stall, error) {
	if !g.Enabled() {
		return nil, nil
	}
	var problems []string
	for _, name := range g.policies {
		problem, err := g.problem(ctx, name)
		if err != nil {
			return nil, err
		}
		if problem != "" {
			problems = append(problems, problem)
		}
	}
	crds, err := g.crds.problems(ctx)
	if err != nil {
		return nil, err
	}
	problems = append(problems, crds...)
	if g.project != nil {
		problem, err := g.project(ctx)
		if err != nil {
			return nil, err
		}
		if problem != "" {
			problems = append(problems, problem)
		}
	}
	return domain.AdmissionPolicyMissing(problems), nil
}

// problem says what is wrong with the policy name and its binding ("" when it is in force).
func (g *AdmissionGuard) problem(ctx context.Context, name string) (string, error) {
	key := types.NamespacedName{Name: name}
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{}
	switch err := g.reader.Get(ctx, key, policy); {
	case apierrors.IsNotFound(err):
		return "ValidatingAdmissionPolicy " + name + " is missing", nil
	case err != nil:
		return "", fmt.Errorf("get ValidatingAdmissionPolicy %s: %w", name, err)
	case policy.Spec.FailurePolicy != nil && *policy.Spec.FailurePolicy != admissionregistrationv1.Fail:
		return "ValidatingAdmissionPolicy " + name + " does not fail closed (failurePolicy Fail)", nil
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
	switch err := g.reader.Get(ctx, key, binding); {
	case apierrors.IsNotFound(err):
		return "ValidatingAdmissionPolicyBinding " + name + " is missing", nil
	case err != nil:
		return "", fmt.Errorf("get ValidatingAdmissionPolicyBinding %s: %w", name, err)
	}
	s := binding.Spec
	switch {
	case s.PolicyName != name:
		return fmt.Sprintf("ValidatingAdmissionPolicyBinding %s binds %q, not %s", name, s.PolicyName, name), nil
	case !slices.Contains(s.ValidationActions, admissionregistrationv1.Deny):
		return "ValidatingAdmissionPolicyBinding " + name + " does not deny (validationActions lacks Deny)", nil
	case s.MatchResources != nil || s.ParamRef != nil:
		return "ValidatingAdmissionPolicyBinding " + name + " narrows the policy (matchResources or paramRef set)", nil
	}
	return g.contentProblem(name, policy, binding)
}

// contentProblem says how the policy name and its binding differ from what the chart rendered
// ("" when they do not, or when the guard has no digest of name).
func (g *AdmissionGuard) contentProblem(name string, policy *admissionregistrationv1.ValidatingAdmissionPolicy,
	binding *admissionregistrationv1.ValidatingAdmissionPolicyBinding) (string, error) {
	want, ok := g.digests[name]
	if !ok {
		return "", nil
	}
	got, err := AdmissionDigest(policy.Spec, binding.Spec)
	if err != nil {
		return "", err
	}
	if got != want {
		return fmt.Sprintf("ValidatingAdmissionPolicy %s or its binding is not what the chart rendered (content digest %.12s, the chart's %.12s)",
			name, got, want), nil
	}
	return "", nil
}

// WatchAdmission adds to b the watches that wake a controller, through h, when a policy or
// binding changes; an empty guard adds none.
func WatchAdmission(b *builder.Builder, g *AdmissionGuard, h handler.EventHandler) *builder.Builder {
	if !g.Enabled() {
		return b
	}
	return b.Watches(&admissionregistrationv1.ValidatingAdmissionPolicy{}, h).
		Watches(&admissionregistrationv1.ValidatingAdmissionPolicyBinding{}, h)
}
