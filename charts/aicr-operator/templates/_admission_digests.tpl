{{/*
The content digest of each admission policy and its binding, as the operator's
--admission-digests flag: "<name>=<sha256 hex>" pairs, comma-separated, sorted by name. The
digest is the SHA-256 of the policy's spec and the binding's spec as canonical JSON (sorted
keys), one per line, with the fields the API server defaults left out where they hold their
default (failurePolicy Fail, matchPolicy Equivalent, empty namespace and object selectors, rule
scope "*"). The operator computes the same digest from the live objects and stalls
AdmissionPolicyMissing when they differ, so an edited policy or binding is never trusted.
*/}}
{{- define "aicr-operator.admissionDigests" -}}
{{- $specs := dict -}}
{{- range $t := list "approval" "clusterruntime" "engine" "jobs" "plans" "status" "teardown" "validation" -}}
{{- range $doc := splitList "\n---\n" (include (print "aicr-operator.admission-" $t) $) -}}
{{- $o := fromYaml $doc -}}
{{- if and (hasKey $o "spec") (has ($o.kind | default "") (list "ValidatingAdmissionPolicy" "ValidatingAdmissionPolicyBinding")) -}}
{{- $s := deepCopy $o.spec -}}
{{- include "aicr-operator.admissionDefaultsDropped" $s -}}
{{- $_ := set $specs (print $o.kind " " $o.metadata.name) (toJson $s) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $pairs := list -}}
{{- range $key := keys $specs | sortAlpha -}}
{{- $name := trimPrefix "ValidatingAdmissionPolicy " $key -}}
{{- if ne $name $key -}}
{{- $binding := get $specs (print "ValidatingAdmissionPolicyBinding " $name) -}}
{{- if not $binding -}}
{{- fail (printf "admission policy %s has no binding of the same name" $name) -}}
{{- end -}}
{{- $pairs = append $pairs (printf "%s=%s" $name (sha256sum (print (get $specs $key) "\n" $binding))) -}}
{{- end -}}
{{- end -}}
{{- join "," $pairs -}}
{{- end }}

{{/* Drops from a policy or binding spec (a dict, changed in place) the defaulted fields. */}}
{{- define "aicr-operator.admissionDefaultsDropped" -}}
{{- if eq (.failurePolicy | default "") "Fail" }}{{ $_ := unset . "failurePolicy" }}{{ end -}}
{{- range $field := list "matchConstraints" "matchResources" -}}
{{- $m := get $ $field -}}
{{- if $m -}}
{{- if eq ($m.matchPolicy | default "") "Equivalent" }}{{ $_ := unset $m "matchPolicy" }}{{ end -}}
{{- range $selector := list "namespaceSelector" "objectSelector" -}}
{{- if and (hasKey $m $selector) (empty (get $m $selector)) }}{{ $_ := unset $m $selector }}{{ end -}}
{{- end -}}
{{- range $rules := list "resourceRules" "excludeResourceRules" -}}
{{- range $rule := get $m $rules | default list -}}
{{- if eq ($rule.scope | default "") "*" }}{{ $_ := unset $rule "scope" }}{{ end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end }}
