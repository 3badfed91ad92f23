{{/*
Common labels of every object the chart renders.
*/}}
{{- define "aicr-operator.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: aicr-operator
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/*
Selector labels of the operator Deployment.
*/}}
{{- define "aicr-operator.selectorLabels" -}}
app.kubernetes.io/name: aicr-operator
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
The operator's username as the API server sees it. The admission policies compare against it.
*/}}
{{- define "aicr-operator.username" -}}
system:serviceaccount:{{ .Release.Namespace }}:aicr-operator
{{- end }}

{{/*
The usernames of the chart's other ServiceAccounts as a JSON list: aicr-jobs in each Job
namespace, aicr-operator-validate (bound to cluster-admin) in the validation namespace and
aicr-snapshot-agent in the discovery namespace. The
approval policy refuses spec.approval changes from them (ADM-1): they run AICR, not people.
The validate identity is listed whether or not validation.enabled, so turning validation on
later never widens who can approve.
*/}}
{{- define "aicr-operator.chartServiceAccountUsernames" -}}
{{- $users := list -}}
{{- range include "aicr-operator.jobNamespaces" . | fromJsonArray -}}
{{- $users = append $users (printf "system:serviceaccount:%s:aicr-jobs" .) -}}
{{- end -}}
{{- $users = append $users (printf "system:serviceaccount:%s:aicr-operator-validate" .Values.namespaces.validation.name) -}}
{{- $users = append $users (printf "system:serviceaccount:%s:aicr-snapshot-agent" .Values.namespaces.discovery.name) -}}
{{- toJson (uniq $users) -}}
{{- end }}

{{/*
The registry repository prefix without a trailing slash.
*/}}
{{- define "aicr-operator.registry" -}}
{{- .Values.registry.repository | trimSuffix "/" -}}
{{- end }}

{{/*
The operator image, pinned by digest.
*/}}
{{- define "aicr-operator.image" -}}
{{- $i := .Values.operator.image -}}
{{- printf "%s:%s@%s" $i.repository (default .Chart.AppVersion $i.tag) $i.digest -}}
{{- end }}

{{/*
aicr.version without the leading "v" the schema allows: the images are tagged v<version> and
the operator gets the bare version.
*/}}
{{- define "aicr-operator.aicrVersion" -}}
{{- trimPrefix "v" .Values.aicr.version -}}
{{- end }}

{{/*
The AICR image, tagged with aicr.version and pinned by digest.
*/}}
{{- define "aicr-operator.aicrImage" -}}
{{- printf "%s:v%s@%s" .Values.aicr.image.repository (include "aicr-operator.aicrVersion" .) .Values.aicr.image.digest -}}
{{- end }}
{{/*
The check images `aicr validate` runs, as a JSON list: AICR's validator images of each phase
in aicr.validators.registry, tagged v<aicr.version> as AICR tags them (by tag, not digest).
*/}}
{{- define "aicr-operator.checkImages" -}}
{{- $images := list -}}
{{- range list "deployment" "performance" "conformance" -}}
{{- $images = append $images (printf "%s/aicr-validators/%s:v%s" $.Values.aicr.validators.registry . (include "aicr-operator.aicrVersion" $)) -}}
{{- end -}}
{{- toJson $images -}}
{{- end }}

{{/*
The namespaces the chart creates, as a JSON object name -> podSecurity: the component
namespaces and the Job, discovery and validation namespaces, without the release namespace
(the installer creates it). A name listed twice with different Pod Security levels fails.
*/}}
{{- define "aicr-operator.managedNamespaces" -}}
{{- $out := dict -}}
{{- $all := concat .Values.namespaces.components (list .Values.namespaces.jobs .Values.namespaces.discovery .Values.namespaces.validation) -}}
{{- range $all -}}
{{- if ne .name $.Release.Namespace -}}
{{- $seen := get $out .name -}}
{{- if and $seen (ne $seen .podSecurity) -}}
{{- fail (printf "namespace %s is listed with Pod Security levels %s and %s: give it one level" .name $seen .podSecurity) -}}
{{- end -}}
{{- $_ := set $out .name .podSecurity -}}
{{- end -}}
{{- end -}}
{{- toJson $out -}}
{{- end }}

{{/*
The namespaces AICR Jobs run in as aicr-jobs (the Job namespace and, with validation, the
validation namespace), deduplicated. The discovery namespace holds only the snapshot agent,
which runs as aicr-snapshot-agent (operatorJobNamespaces).
*/}}
{{- define "aicr-operator.jobNamespaces" -}}
{{- $ns := list .Values.namespaces.jobs.name -}}
{{- if .Values.validation.enabled -}}
{{- $ns = append $ns .Values.namespaces.validation.name -}}
{{- end -}}
{{- toJson (uniq $ns) -}}
{{- end }}

{{/*
The namespaces the operator runs Jobs in: the Job namespaces and the discovery namespace,
where it runs AICR's snapshot agent (RES-1), deduplicated.
*/}}
{{- define "aicr-operator.operatorJobNamespaces" -}}
{{- toJson (append (include "aicr-operator.jobNamespaces" . | fromJsonArray) .Values.namespaces.discovery.name | uniq) -}}
{{- end }}

{{/*
Checks the schema cannot express. Each failure names the value to fix.
*/}}
{{- define "aicr-operator.validate" -}}
{{- /* values.schema.json's aicr.version pattern, for installs that skip the schema (test/chart checks both agree) */ -}}
{{- $supported := `^v?1\.(0\.0|0\.[1-9][0-9]*(-(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(\.(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*)?|[1-9][0-9]*\.(0|[1-9][0-9]*)(-(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(\.(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*)?)(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$` -}}
{{- if not (and (regexMatch $supported .Values.aicr.version) (semverCompare ">=1.0.0, <2.0.0-0" .Values.aicr.version)) -}}
{{- fail (printf "aicr.version %s is not supported: this chart runs AICR >=1.0.0, <2.0.0-0 (SemVer 2.0.0, 1.0.0's pre-releases below it)" .Values.aicr.version) -}}
{{- end -}}
{{- if eq .Values.registry.auth.provider "aws" -}}
{{- if not (or (get .Values.operator.serviceAccountAnnotations "eks.amazonaws.com/role-arn") .Values.operator.awsPodIdentity) -}}
{{- fail "registry.auth.provider aws needs the operator's AWS identity: set operator.serviceAccountAnnotations.\"eks.amazonaws.com/role-arn\" (IRSA) or operator.awsPodIdentity: true (EKS Pod Identity association)" -}}
{{- end -}}
{{- end -}}
{{- if and (gt (int .Values.operator.replicas) 1) (not .Values.operator.leaderElection.enabled) -}}
{{- fail "operator.replicas above 1 needs operator.leaderElection.enabled: two operators without a leader would both write" -}}
{{- end -}}
{{- if and (eq .Values.registry.auth.provider "aws") (not .Values.registry.auth.awsPullRoleArn) -}}
{{- fail "registry.auth.provider aws needs registry.auth.awsPullRoleArn, the pull-only role whose ECR token Argo CD gets" -}}
{{- end -}}
{{- if and (ne .Values.registry.auth.provider "aws") (regexMatch `^oci://[0-9]{12}\.dkr\.ecr(-fips)?\.[a-z0-9-]+\.[a-z0-9.-]+(/|$)` (.Values.registry.repository | default "")) -}}
{{- fail (printf "registry.repository %s is in ECR, whose login tokens expire after 12 hours: set registry.auth.provider: aws (the operator refreshes them) with registry.auth.awsPullRoleArn, the pull-only role whose ECR token Argo CD gets" .Values.registry.repository) -}}
{{- end -}}
{{- if and (eq .Values.registry.auth.provider "static") (not .Values.registry.auth.staticSecret) -}}
{{- fail "registry.auth.provider static needs registry.auth.staticSecret, the Secret the operator reads" -}}
{{- end -}}
{{- range .Values.namespaces.components -}}
{{- if eq .name $.Release.Namespace -}}
{{- fail (printf "namespaces.components lists %s, the operator's own (release) namespace: components need their own namespaces" .name) -}}
{{- end -}}
{{- if eq .name $.Values.engine.namespace -}}
{{- fail (printf "namespaces.components lists %s, the engine namespace: components need their own namespaces" .name) -}}
{{- end -}}
{{- end -}}
{{- $names := list -}}
{{- range .Values.namespaces.components -}}
{{- if has .name $names -}}
{{- fail (printf "namespaces.components lists %s twice" .name) -}}
{{- end -}}
{{- $names = append $names .name -}}
{{- end -}}
{{- $prefixes := list -}}
{{- range .Values.upstream.credentials -}}
{{- $prefix := trimSuffix "/" .repository -}}
{{- if has $prefix $prefixes -}}
{{- fail (printf "upstream.credentials lists repository %s twice: give each prefix one Secret" $prefix) -}}
{{- end -}}
{{- $prefixes = append $prefixes $prefix -}}
{{- end -}}
{{- end }}

{{/*
The annotations of objects that survive uninstall, whoever installs the chart: helm uninstall
keeps them (helm.sh/resource-policy), and so does Argo CD when the chart is an Application's
source: Prune=false keeps an object a values change stops rendering, Delete=false keeps it when
the Application is deleted, so an Argo CD-managed uninstall never deletes the component
namespaces and the GPU stack in them. The generated CRDs carry the same two annotations from
their kubebuilder markers (adapters/kube/api/v1alpha1); a chart test checks every kept object.
*/}}
{{- define "aicr-operator.keep" -}}
helm.sh/resource-policy: keep
argocd.argoproj.io/sync-options: Prune=false,Delete=false
{{- end }}

{{/*
The component namespace names as a JSON list.
*/}}
{{- define "aicr-operator.componentNames" -}}
{{- $names := list -}}
{{- range .Values.namespaces.components }}{{ $names = append $names .name }}{{ end -}}
{{- toJson $names -}}
{{- end }}

{{/*
The Secrets every AICR Job's image is pulled with (jobs.imagePullSecrets), comma-separated.
*/}}
{{- define "aicr-operator.jobPullSecrets" -}}
{{- $names := list -}}
{{- range .Values.jobs.imagePullSecrets }}{{ $names = append $names .name }}{{ end -}}
{{- join "," $names -}}
{{- end }}

{{/*
The Secrets of upstream.credentials, each once, as a JSON list: the operator's get grant by name.
*/}}
{{- define "aicr-operator.upstreamSecrets" -}}
{{- $names := list -}}
{{- range .Values.upstream.credentials }}{{ $names = append $names .secret }}{{ end -}}
{{- $names | uniq | toJson -}}
{{- end }}

{{/*
The cluster-scoped kinds no Application may ever write, whatever engine.clusterResources says,
as a JSON list of {group, kind}: the admission policies and their bindings (they guard
approvals and plans) and every kind of the operator's own group. The AppProject blacklists
them; "aicr-operator.clusterResources" refuses to allow them.
*/}}
{{- define "aicr-operator.forbiddenClusterResources" -}}
{{- $out := list -}}
{{- range list "ValidatingAdmissionPolicy" "ValidatingAdmissionPolicyBinding" "MutatingAdmissionPolicy" "MutatingAdmissionPolicyBinding" -}}
{{- $out = append $out (dict "group" "admissionregistration.k8s.io" "kind" .) -}}
{{- end -}}
{{- $out = append $out (dict "group" "operator.aicr.run" "kind" "*") -}}
{{- toJson $out -}}
{{- end }}

{{/*
engine.clusterResources, the cluster-scoped kinds the AppProject allows, checked and as a
JSON list of {group, kind}. Argo CD matches both fields as globs, so each entry must name one
exact group and kind. Refused whatever the values say (compared case-insensitively): any kind
of operator.aicr.run or of a group under it, and any admissionregistration.k8s.io kind but the
two webhook configurations, so ValidatingAdmissionPolicy, MutatingAdmissionPolicy, their
bindings and any later admission kind never reach the allow-list.
*/}}
{{- define "aicr-operator.clusterResources" -}}
{{- $out := list -}}
{{- range $i, $r := .Values.engine.clusterResources -}}
{{- $group := toString (default "" $r.group) -}}
{{- $kind := toString (default "" $r.kind) -}}
{{- $g := lower $group -}}
{{- $k := lower $kind -}}
{{- if not (regexMatch "^[A-Za-z][A-Za-z0-9]*$" $kind) -}}
{{- fail (printf "engine.clusterResources[%d]: kind %q must be one exact kind (letters and digits, no wildcard)" $i $kind) -}}
{{- end -}}
{{- if not (regexMatch "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$" $g) -}}
{{- fail (printf "engine.clusterResources[%d]: group %q must be one exact API group (\"\" for the core group, no wildcard)" $i $group) -}}
{{- end -}}
{{- if or (eq $g "operator.aicr.run") (hasSuffix ".operator.aicr.run" $g) -}}
{{- fail (printf "engine.clusterResources[%d]: %s/%s is never allowed: no Application may write the operator's own API (operator.aicr.run), whatever the values say" $i $group $kind) -}}
{{- end -}}
{{- if and (eq $g "admissionregistration.k8s.io") (not (has $k (list "validatingwebhookconfiguration" "mutatingwebhookconfiguration"))) -}}
{{- fail (printf "engine.clusterResources[%d]: %s/%s is never allowed: admission policies and their bindings guard approvals and plans, so of admissionregistration.k8s.io only ValidatingWebhookConfiguration and MutatingWebhookConfiguration may be allowed, whatever the values say" $i $group $kind) -}}
{{- end -}}
{{- $entry := dict "group" $group "kind" $kind -}}
{{- if not (has $entry $out) -}}
{{- $out = append $out $entry -}}
{{- end -}}
{{- end -}}
{{- toJson $out -}}
{{- end }}

{{/*
Whether the metrics endpoint is HTTPS with authentication (operator.metricsSecure, default
true), as "true" or "false".
*/}}
{{- define "aicr-operator.metricsSecure" -}}
{{- if hasKey .Values.operator "metricsSecure" -}}
{{- .Values.operator.metricsSecure -}}
{{- else -}}
true
{{- end -}}
{{- end }}

{{/*
The name of the metrics Service port: https-metrics with secure metrics, else http-metrics.
*/}}
{{- define "aicr-operator.metricsPortName" -}}
{{- if eq (include "aicr-operator.metricsSecure" .) "true" -}}
https-metrics
{{- else -}}
http-metrics
{{- end -}}
{{- end }}

{{/*
The chart's ValidatingAdmissionPolicies, each bound by a binding of the same name, as a JSON
list (shared.ChartAdmissionPolicies in the operator; a chart test keeps the three in step).
*/}}
{{- define "aicr-operator.admissionPolicies" -}}
{{- toJson (list "aicr-operator-approval" "aicr-operator-plans" "aicr-operator-clusterruntime" "aicr-operator-status" "aicr-operator-job-configmaps" "aicr-operator-job-workloads" "aicr-operator-validation-run" "aicr-operator-engine-guard" "aicr-operator-teardown-guard") -}}
{{- end }}

{{/*
The RBAC subjects of every approver and viewer, each once, as JSON: users, then groups.
*/}}
{{- define "aicr-operator.readerSubjects" -}}
{{- $subjects := list -}}
{{- range concat .Values.approvers.users .Values.viewers.users }}{{ $subjects = append $subjects (dict "apiGroup" "rbac.authorization.k8s.io" "kind" "User" "name" .) }}{{ end -}}
{{- range concat .Values.approvers.groups .Values.viewers.groups }}{{ $subjects = append $subjects (dict "apiGroup" "rbac.authorization.k8s.io" "kind" "Group" "name" .) }}{{ end -}}
{{- toJson (uniq $subjects) -}}
{{- end }}
