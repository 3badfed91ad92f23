{{/*
The namespaces the Job admission policies guard, as a JSON list: the Job, discovery and
validation namespaces, whether or not validation is enabled (a namespace kept from an earlier
install stays guarded).
*/}}
{{- define "aicr-operator.jobPolicyNamespaces" -}}
{{- $v := .Values.namespaces -}}
{{- toJson (uniq (list $v.jobs.name $v.discovery.name $v.validation.name)) -}}
{{- end }}

{{/*
What may run in each guarded namespace, as a JSON object (a CEL map literal) namespace ->
{serviceAccounts, images, copiers, agents, checks}: the AICR Jobs' identity and the pinned
AICR image in the Job namespace, the snapshot agent's identity and the pinned AICR image in
the discovery namespace, the validate identity and the pinned AICR image in the validation
namespace. copiers is the operator's own image in the Job namespace, which a bundle Job runs
only as its image-refs container to hand AICR's pushed digest back. agents and checks are
what `aicr validate` itself starts in the validation namespace: its snapshot agent with the
pinned AICR image and its checks with AICR's validator images. Namespaces that coincide get
both.
*/}}
{{- define "aicr-operator.jobRunners" -}}
{{- $v := .Values.namespaces -}}
{{- $aicrImage := include "aicr-operator.aicrImage" . -}}
{{- $aicr := dict "serviceAccounts" (list "aicr-jobs") "images" (list $aicrImage) "copiers" (list (include "aicr-operator.image" .)) "agents" list "checks" list -}}
{{- $agent := dict "serviceAccounts" (list "aicr-snapshot-agent") "images" (list $aicrImage) "copiers" list "agents" list "checks" list -}}
{{- $validate := dict "serviceAccounts" (list "aicr-operator-validate") "images" (list $aicrImage) "copiers" list "agents" (list $aicrImage) "checks" (include "aicr-operator.checkImages" . | fromJsonArray) -}}
{{- $out := dict -}}
{{- range $pair := list (list $v.jobs.name $aicr) (list $v.discovery.name $agent) (list $v.validation.name $validate) -}}
{{- $ns := index $pair 0 -}}
{{- $add := index $pair 1 -}}
{{- $cur := get $out $ns | default (dict "serviceAccounts" list "images" list "copiers" list "agents" list "checks" list) -}}
{{- $_ := set $out $ns (dict
  "serviceAccounts" (concat $cur.serviceAccounts $add.serviceAccounts | uniq)
  "images" (concat $cur.images $add.images | uniq)
  "copiers" (concat $cur.copiers $add.copiers | uniq)
  "agents" (concat $cur.agents $add.agents | uniq)
  "checks" (concat $cur.checks $add.checks | uniq)) -}}
{{- end -}}
{{- toJson $out -}}
{{- end }}

{{/*
The username `aicr validate` runs as: the validate identity of the validation namespace.
*/}}
{{- define "aicr-operator.validateUsername" -}}
system:serviceaccount:{{ .Values.namespaces.validation.name }}:aicr-operator-validate
{{- end }}

{{/*
The names AICR gives the objects of one `aicr validate` run, as RE2 patterns over a run ID
(a DNS label): its snapshot agent's Job, ServiceAccount, Role and RoleBinding, its validator
ServiceAccount (fixed in earlier 1.x releases, run-scoped in later ones), its input
ConfigMaps, and its cluster-wide agent role and bindings.
*/}}
{{- define "aicr-operator.runID" -}}[a-z0-9]([-a-z0-9]*[a-z0-9])?{{- end }}
{{- define "aicr-operator.agentName" -}}^aicr-validate-{{ include "aicr-operator.runID" . }}${{- end }}
{{- define "aicr-operator.validatorName" -}}^aicr-validator(-{{ include "aicr-operator.runID" . }})?${{- end }}
{{- define "aicr-operator.runConfigMapName" -}}^aicr-(snapshot|recipe)-{{ include "aicr-operator.runID" . }}${{- end }}

{{/*
The identities of kube-controller-manager's controllers that create Pods for Jobs, collect
garbage, delete namespaces and publish kube-root-ca.crt, as a JSON list (a CEL list literal):
one per controller with --use-service-account-credentials, the manager's own otherwise.
*/}}
{{- define "aicr-operator.kubeControllers" -}}
{{- $sas := list "job-controller" "generic-garbage-collector" "namespace-controller" "root-ca-cert-publisher" -}}
{{- $users := list "system:kube-controller-manager" -}}
{{- range $sas }}{{ $users = append $users (printf "system:serviceaccount:kube-system:%s" .) }}{{ end -}}
{{- toJson $users -}}
{{- end }}
