{{/* The chart's name, or nameOverride: the app.kubernetes.io/name label. */}}
{{- define "quarry.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end }}

{{/*
The prefix of every object's name: fullnameOverride, or the release name (so that names stay the same on upgrade:
the operator's Lease is named after it, and two names would let two leaders act).
*/}}
{{- define "quarry.fullname" -}}
{{- default .Release.Name .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- end }}

{{/* Labels every object of the release carries. */}}
{{- define "quarry.labels" -}}
app.kubernetes.io/name: {{ include "quarry.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/part-of: quarry
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end }}

{{/* The operator pods' selector. */}}
{{- define "quarry.operatorSelector" -}}
app.kubernetes.io/name: {{ include "quarry.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end }}

{{/* The operator's ServiceAccount: the one the chart creates, or one the admin made. */}}
{{- define "quarry.operatorServiceAccount" -}}
{{- default (printf "%s-operator" (include "quarry.fullname" .)) .Values.serviceAccounts.operator.name -}}
{{- end }}

{{/* The agents' ServiceAccount: the one the chart creates, or one the admin made. */}}
{{- define "quarry.agentServiceAccount" -}}
{{- default (printf "%s-agent" (include "quarry.fullname" .)) .Values.serviceAccounts.agent.name -}}
{{- end }}

{{/* <registry>/<repository>:<tag>, the tag defaulting to the chart's appVersion. */}}
{{- define "quarry.image" -}}
{{- $tag := default .root.Chart.AppVersion .image.tag -}}
{{- if .image.registry -}}
{{ .image.registry }}/{{ .image.repository }}:{{ $tag }}
{{- else -}}
{{ .image.repository }}:{{ $tag }}
{{- end -}}
{{- end }}

{{/* storeEndpoints as a JSON array, each without a trailing slash. */}}
{{- define "quarry.storeEndpoints" -}}
{{- $endpoints := list -}}
{{- range .Values.storeEndpoints -}}
{{- $endpoints = append $endpoints (trimSuffix "/" .) -}}
{{- end -}}
{{- toJson $endpoints -}}
{{- end }}

{{/*
Fails the render when a NodeCache root lies inside another (of any kind): the agent mounts each root apart, and a
mount root inside a source root would let the images it mounts be read as sources. The operator refuses the same.
*/}}
{{- define "quarry.nodeCacheRootsApart" -}}
{{- $all := concat .Values.nodeCache.mountRoots .Values.nodeCache.cacheRoots .Values.nodeCache.sourceRoots -}}
{{- range $i, $a := $all -}}
{{- range $j, $b := $all -}}
{{- if and (ne $i $j) (or (eq $a $b) (hasPrefix (printf "%s/" $a) $b)) -}}
{{- fail (printf "Invalid NodeCache roots: %s and %s (must be apart: no mount, cache or source root inside another; set nodeCache.mountRoots, cacheRoots and sourceRoots)" $a $b) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end }}
