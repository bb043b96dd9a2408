{{/* Labels every object of the release carries. */}}
{{- define "quarry.labels" -}}
app.kubernetes.io/name: quarry
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/part-of: quarry
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end }}

{{/* The operator pods' selector. */}}
{{- define "quarry.operatorSelector" -}}
app.kubernetes.io/name: quarry
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
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
