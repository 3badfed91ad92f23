{{/*
The operator's AppProject, rendered by appproject.yaml and hashed by
aicr-operator.appProjectDigest.
*/}}
{{- define "aicr-operator.appProject" -}}
{{- $registry := include "aicr-operator.registry" . -}}
{{- $allowed := include "aicr-operator.clusterResources" . | fromJsonArray -}}
# The Argo CD project of every Application the operator writes: charts only from the runtime
# registry, destinations only the component namespaces on this cluster, cluster-scoped kinds
# only those of engine.clusterResources. Kept on uninstall so the Applications and the GPU
# stack stay.
apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata:
  name: {{ .Values.engine.project }}
  namespace: {{ .Values.engine.namespace }}
  labels:
    {{- include "aicr-operator.labels" . | nindent 4 }}
  annotations:
    {{- include "aicr-operator.keep" . | nindent 4 }}
spec:
  description: GPU stack rolled out by the AICR operator
  sourceRepos:
    - {{ printf "%s/charts/*" $registry | quote }}
    - {{ printf "%s/wrappers/*" $registry | quote }}
  destinations:
    {{- range .Values.namespaces.components }}
    - server: https://kubernetes.default.svc
      namespace: {{ .name | quote }}
    {{- end }}
  # The allow-list (engine.clusterResources, checked by the chart): each entry one exact group
  # and kind, never an admission policy or the operator's own API.
  {{- if $allowed }}
  clusterResourceWhitelist:
    {{- range $allowed }}
    - group: {{ .group | quote }}
      kind: {{ .kind | quote }}
    {{- end }}
  {{- else }}
  clusterResourceWhitelist: []
  {{- end }}
  # Defence in depth: refused even if the allow-list above were widened by hand. Argo CD
  # matches kinds only, so a CustomResourceDefinition named *.operator.aicr.run is not
  # covered here (see the chart README).
  clusterResourceBlacklist:
    {{- range include "aicr-operator.forbiddenClusterResources" . | fromJsonArray }}
    - group: {{ .group | quote }}
      kind: {{ .kind | quote }}
    {{- end }}
  namespaceResourceBlacklist:
    - group: "operator.aicr.run"
      kind: "*"
{{- end }}

{{/*
The content digest of the AppProject's spec, as the operator's --engine-project-digest flag:
the SHA-256 of the spec as canonical JSON (sorted keys) without the top-level fields that hold
nothing (null, "", [] or {}). The operator computes the same digest from the live AppProject
(argocd.ProjectDigest) and stalls AdmissionPolicyMissing when they differ, so a project
widened by hand (sources, destinations, allowed kinds, sync windows, roles) is never trusted.
*/}}
{{- define "aicr-operator.appProjectDigest" -}}
{{- $spec := (include "aicr-operator.appProject" . | fromYaml).spec | default dict -}}
{{- $kept := dict -}}
{{- range $k, $v := $spec -}}
{{- if not (empty $v) }}{{ $_ := set $kept $k $v }}{{ end -}}
{{- end -}}
{{- toJson $kept | sha256sum -}}
{{- end }}
