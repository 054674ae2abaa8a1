{{/* The name every object starts with. */}}
{{- define "draplane.fullname" -}}
{{- if contains "draplane" .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-draplane" .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels of every object; pass a component name as "component". */}}
{{- define "draplane.labels" -}}
app.kubernetes.io/name: draplane
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
{{- if .component }}
app.kubernetes.io/component: {{ .component }}
{{- end }}
{{- end -}}

{{/* Selector labels of a component's pods. */}}
{{- define "draplane.selector" -}}
app.kubernetes.io/name: draplane
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "draplane.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{/* A component's ServiceAccount name. */}}
{{- define "draplane.serviceAccount" -}}
{{ include "draplane.fullname" .root }}-{{ .component }}
{{- end -}}

{{/* The flags every component takes. */}}
{{- define "draplane.commonArgs" -}}
- --logging-format={{ .Values.logging.format }}
- --v={{ .Values.logging.verbosity }}
{{- end -}}

{{/* Leader election in the release's namespace. */}}
{{- define "draplane.leaderElectionArgs" -}}
- --leader-elect-resource-namespace={{ .Release.Namespace }}
- --leader-elect-lease-duration={{ .Values.leaderElection.leaseDuration }}
- --leader-elect-renew-deadline={{ .Values.leaderElection.renewDeadline }}
- --leader-elect-retry-period={{ .Values.leaderElection.retryPeriod }}
{{- end -}}

{{/* The security context of the scheduler's and controller's containers. */}}
{{- define "draplane.restrictedContainer" -}}
securityContext:
  runAsNonRoot: true
  runAsUser: 65532
  runAsGroup: 65532
  allowPrivilegeEscalation: false
  readOnlyRootFilesystem: true
  capabilities:
    drop: [ALL]
  seccompProfile:
    type: RuntimeDefault
{{- end -}}

{{/* "true" when the controller named .name runs (controller.controllers,
     as kube-controller-manager's --controllers). */}}
{{- define "draplane.controllerEnabled" -}}
{{- $list := splitList "," (nospace .root.Values.controller.controllers) -}}
{{- if has .name $list -}}true
{{- else if has (printf "-%s" .name) $list -}}
{{- else if has "*" $list -}}true
{{- end -}}
{{- end -}}
