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
{serviceAccounts, images, copiers}: the AICR Jobs' identity and the pinned AICR image in the
Job namespace, the snapshot agent's identity and the pinned AICR image in the discovery
namespace, the validators' identity and the pinned validator image in the validation namespace.
copiers is the operator's own image in the Job namespace, which a bundle Job runs only as its
image-refs container to hand AICR's pushed digest back. Namespaces that coincide get both.
*/}}
{{- define "aicr-operator.jobRunners" -}}
{{- $v := .Values.namespaces -}}
{{- $aicr := dict "serviceAccounts" (list "aicr-jobs") "images" (list (include "aicr-operator.aicrImage" .)) "copiers" (list (include "aicr-operator.image" .)) -}}
{{- $agent := dict "serviceAccounts" (list "aicr-snapshot-agent") "images" (list (include "aicr-operator.aicrImage" .)) "copiers" list -}}
{{- $validator := dict "serviceAccounts" (list "aicr-validator") "images" (list (include "aicr-operator.validatorImage" .)) "copiers" list -}}
{{- $out := dict -}}
{{- range $pair := list (list $v.jobs.name $aicr) (list $v.discovery.name $agent) (list $v.validation.name $validator) -}}
{{- $ns := index $pair 0 -}}
{{- $add := index $pair 1 -}}
{{- $cur := get $out $ns | default (dict "serviceAccounts" list "images" list "copiers" list) -}}
{{- $_ := set $out $ns (dict
  "serviceAccounts" (concat $cur.serviceAccounts $add.serviceAccounts | uniq)
  "images" (concat $cur.images $add.images | uniq)
  "copiers" (concat $cur.copiers $add.copiers | uniq)) -}}
{{- end -}}
{{- toJson $out -}}
{{- end }}

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
