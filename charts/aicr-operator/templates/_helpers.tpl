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
namespace and aicr-validator (bound to cluster-admin) in the validation namespace. The
approval policy refuses spec.approval changes from them (ADM-1): they run AICR, not people.
The validator is listed whether or not validation.enabled, so turning validation on later
never widens who can approve.
*/}}
{{- define "aicr-operator.chartServiceAccountUsernames" -}}
{{- $users := list -}}
{{- range include "aicr-operator.jobNamespaces" . | fromJsonArray -}}
{{- $users = append $users (printf "system:serviceaccount:%s:aicr-jobs" .) -}}
{{- end -}}
{{- $users = append $users (printf "system:serviceaccount:%s:aicr-validator" .Values.namespaces.validation.name) -}}
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
The AICR and validator images, tagged with aicr.version and pinned by digest.
*/}}
{{- define "aicr-operator.aicrImage" -}}
{{- printf "%s:v%s@%s" .Values.aicr.image.repository .Values.aicr.version .Values.aicr.image.digest -}}
{{- end }}
{{- define "aicr-operator.validatorImage" -}}
{{- printf "%s:v%s@%s" .Values.aicr.validatorImage.repository .Values.aicr.version .Values.aicr.validatorImage.digest -}}
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
The namespaces the operator runs Jobs in (Job, discovery and, with validation, validation),
deduplicated.
*/}}
{{- define "aicr-operator.jobNamespaces" -}}
{{- $ns := list .Values.namespaces.jobs.name .Values.namespaces.discovery.name -}}
{{- if .Values.validation.enabled -}}
{{- $ns = append $ns .Values.namespaces.validation.name -}}
{{- end -}}
{{- toJson (uniq $ns) -}}
{{- end }}

{{/*
Checks the schema cannot express. Each failure names the value to fix.
*/}}
{{- define "aicr-operator.validate" -}}
{{- if not (semverCompare ">=1.0.0-0, <2.0.0-0" .Values.aicr.version) -}}
{{- fail (printf "aicr.version %s is not supported: this chart runs AICR >=1.0.0, <2.0.0" .Values.aicr.version) -}}
{{- end -}}
{{- if eq .Values.registry.auth.provider "aws" -}}
{{- if not (or (get .Values.operator.serviceAccountAnnotations "eks.amazonaws.com/role-arn") .Values.operator.awsPodIdentity) -}}
{{- fail "registry.auth.provider aws needs the operator's AWS identity: set operator.serviceAccountAnnotations.\"eks.amazonaws.com/role-arn\" (IRSA) or operator.awsPodIdentity: true (EKS Pod Identity association)" -}}
{{- end -}}
{{- end -}}
{{- if and (gt (int .Values.operator.replicas) 1) (not .Values.operator.leaderElection.enabled) -}}
{{- fail "operator.replicas above 1 needs operator.leaderElection.enabled: two operators without a leader would both write" -}}
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
{{- end }}

{{/*
The keep annotation for objects that survive helm uninstall.
*/}}
{{- define "aicr-operator.keep" -}}
helm.sh/resource-policy: keep
{{- end }}

{{/*
The component namespace names as a JSON list.
*/}}
{{- define "aicr-operator.componentNames" -}}
{{- $names := list -}}
{{- range .Values.namespaces.components }}{{ $names = append $names .name }}{{ end -}}
{{- toJson $names -}}
{{- end }}
