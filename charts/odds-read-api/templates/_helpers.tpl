{{/* Names, labels and the per-service settings shared by every template. */}}

{{- define "odds.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "odds.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains (include "odds.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "odds.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Name of one component's objects: <fullname>-<component>. Call with (dict "root" $ "component" "edge"). */}}
{{- define "odds.componentName" -}}
{{- printf "%s-%s" (include "odds.fullname" .root) .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "odds.selectorLabels" -}}
app.kubernetes.io/name: {{ include "odds.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "odds.labels" -}}
{{ include "odds.selectorLabels" . }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: odds-read-api
odds.example/environment: {{ .root.Values.environment | quote }}
{{- with .root.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "odds.annotations" -}}
{{- with .Values.commonAnnotations }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/*
Deep merge of two maps, the second winning, returned as YAML. Unlike sprig's mergeOverwrite
an explicit false, 0 or "" in a service block does override the default.
*/}}
{{- define "odds.deepMerge" -}}
{{- $out := deepCopy (index . 0) -}}
{{- range $key, $value := (index . 1) -}}
{{- if and (kindIs "map" $value) (kindIs "map" (index $out $key)) -}}
{{- $_ := set $out $key (include "odds.deepMerge" (list (index $out $key) $value) | fromYaml) -}}
{{- else -}}
{{- $_ := set $out $key $value -}}
{{- end -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{/* One workload's settings: `defaults` deep-merged with its own block. Returns YAML; use with fromYaml. */}}
{{- define "odds.settings" -}}
{{- include "odds.deepMerge" (list .root.Values.defaults (index .root.Values .component)) -}}
{{- end -}}

{{- define "odds.image" -}}
{{- $image := .image -}}
{{- $ref := ternary (printf "%s/%s" $image.registry $image.repository) $image.repository (ne ($image.registry | toString) "") -}}
{{- if $image.digest -}}
{{- printf "%s@%s" $ref $image.digest -}}
{{- else -}}
{{- printf "%s:%s" $ref (default .root.Chart.AppVersion ($image.tag | toString)) -}}
{{- end -}}
{{- end -}}

{{- define "odds.storesSecretName" -}}
{{- default (printf "%s-stores" (include "odds.fullname" .)) .Values.stores.existingSecret -}}
{{- end -}}

{{/* The Secret holding the edge's CURSOR_SECRET: the operator's (existingSecret) or the one the chart creates. */}}
{{- define "odds.edgeSecretName" -}}
{{- default (printf "%s-edge" (include "odds.fullname" .)) .Values.edge.cursorSecret.existingSecret -}}
{{- end -}}

{{/* host:port of an internal gRPC service, as <NAME>_SERVICE_ADDR expects. */}}
{{- define "odds.serviceAddr" -}}
{{- printf "%s:%v" (include "odds.componentName" .) (index .root.Values .component).grpcPort -}}
{{- end -}}

{{- define "odds.storeEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ include "odds.storesSecretName" .root }}
      key: {{ index .root.Values.stores.secretKeys .key }}
{{- end -}}

{{/*
Environment of one workload: what every service reads, then its own variables (the same
names as deploy/local/src/stack.ts), then env and extraEnvVars from values.
*/}}
{{- define "odds.env" -}}
{{- $root := .root -}}
{{- $c := .component -}}
{{- $s := .settings -}}
- name: LOG_LEVEL
  value: {{ $s.logLevel | quote }}
- name: METRICS_PORT
  value: {{ $s.metricsPort | quote }}
- name: OTEL_SERVICE_NAME
  value: {{ ternary "history-archiver" $c (eq $c "archiver") | quote }}
- name: OTEL_RESOURCE_ATTRIBUTES
  value: {{ printf "deployment.environment=%s,service.namespace=odds-read-api%s" $root.Values.environment (ternary (printf ",%s" $root.Values.otel.resourceAttributes) "" (ne $root.Values.otel.resourceAttributes "")) | quote }}
{{- if $root.Values.otel.enabled }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ $root.Values.otel.endpoint | quote }}
{{- end }}
{{- if eq $c "edge" }}
- name: HTTP_PORT
  value: {{ $s.httpPort | quote }}
{{- range $dep := list "events" "history" "catalogue" "usage" }}
- name: {{ printf "%s_SERVICE_ADDR" (upper $dep) }}
  value: {{ include "odds.serviceAddr" (dict "root" $root "component" $dep) | quote }}
{{- end }}
{{ include "odds.storeEnv" (dict "root" $root "name" "REDIS_URL" "key" "redisUrl") }}
- name: RATE_LIMIT_FAIL_MODE
  value: {{ $s.rateLimitFailMode | quote }}
- name: V2_RETIRED
  value: {{ $s.v2Retired | quote }}
- name: CURSOR_SECRET
  valueFrom:
    secretKeyRef:
      name: {{ include "odds.edgeSecretName" $root }}
      key: {{ $s.cursorSecret.key }}
{{- if $s.cursorSecret.previousKey }}
- name: CURSOR_SECRETS_PREVIOUS
  valueFrom:
    secretKeyRef:
      name: {{ include "odds.edgeSecretName" $root }}
      key: {{ $s.cursorSecret.previousKey }}
{{- end }}
- name: DOWNSTREAM_DEADLINE_MS
  value: {{ $s.downstreamDeadlineMs | quote }}
- name: RATE_LIMIT_TIMEOUT_MS
  value: {{ $s.rateLimitTimeoutMs | quote }}
- name: RATE_LIMIT_ENTITY_FLUSH_MS
  value: {{ $s.rateLimitEntityFlushMs | quote }}
- name: PLAN_CACHE_TTL_MS
  value: {{ $s.planCacheTtlMs | quote }}
- name: KEY_RESOLVE_TIMEOUT_MS
  value: {{ $s.keyResolveTimeoutMs | quote }}
- name: KEY_STALE_GRANT_MS
  value: {{ $s.keyStaleGrantMs | quote }}
- name: STORE_BREAK_AFTER_FAILURES
  value: {{ $s.storeBreakAfterFailures | quote }}
- name: STORE_PROBE_AFTER_MS
  value: {{ $s.storeProbeAfterMs | quote }}
- name: ANSWER_CACHE_MAX_BYTES
  value: {{ $s.answerCache.maxBytes | int64 | quote }}
- name: ANSWER_CACHE_MAX_AGE_MS
  value: {{ $s.answerCache.maxAgeMs | quote }}
- name: ANSWER_CACHE_REFRESH_AHEAD_MS
  value: {{ $s.answerCache.refreshAheadMs | quote }}
{{- else if ne $c "archiver" }}
- name: GRPC_PORT
  value: {{ $s.grpcPort | quote }}
{{- end }}
{{- if eq $c "events" }}
{{ include "odds.storeEnv" (dict "root" $root "name" "EVENTS_MONGODB_URI" "key" "eventsMongodbUri") }}
{{- end }}
{{- if or (eq $c "history") (eq $c "archiver") }}
{{ include "odds.storeEnv" (dict "root" $root "name" "HISTORY_LIVE_MONGODB_URI" "key" "historyLiveMongodbUri") }}
{{ include "odds.storeEnv" (dict "root" $root "name" "HISTORY_ARCHIVE_MONGODB_URI" "key" "historyArchiveMongodbUri") }}
- name: ARCHIVE_INTERVAL_MS
  value: {{ $root.Values.history.archiveIntervalMs | quote }}
- name: HISTORY_TICK_LAYOUT
  value: {{ $root.Values.history.tickLayout | quote }}
{{- end }}
{{- if eq $c "catalogue" }}
{{ include "odds.storeEnv" (dict "root" $root "name" "CATALOGUE_MONGODB_URI" "key" "catalogueMongodbUri") }}
{{- end }}
{{- if eq $c "usage" }}
{{ include "odds.storeEnv" (dict "root" $root "name" "USAGE_MONGODB_URI" "key" "usageMongodbUri") }}
{{ include "odds.storeEnv" (dict "root" $root "name" "REDIS_URL" "key" "redisUrl") }}
- name: PLANS_FILE
  value: /etc/odds/plans/plans.yaml
{{- end }}
{{- if eq $c "ingest" }}
{{ include "odds.storeEnv" (dict "root" $root "name" "INGEST_MONGODB_URI" "key" "ingestMongodbUri") }}
{{- range $dep := list "events" "history" "catalogue" }}
- name: {{ printf "%s_SERVICE_ADDR" (upper $dep) }}
  value: {{ include "odds.serviceAddr" (dict "root" $root "component" $dep) | quote }}
{{- end }}
- name: INGEST_INTERVAL_MS
  value: {{ $s.intervalMs | quote }}
{{- if or $s.existingSourcesConfigMap $s.sources }}
- name: SOURCES_FILE
  value: /etc/odds/sources/sources.yaml
{{- end }}
{{- /* Upstream feed keys: each source names its variable (apiKeyEnv); the values come from a Secret. */}}
{{- range $s.upstreamKeys.keys }}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
      name: {{ required "ingest.upstreamKeys.existingSecret is required when upstream keys are listed" $s.upstreamKeys.existingSecret }}
      key: {{ .key }}
{{- end }}
{{- end }}
{{- range $name, $value := $s.env }}
- name: {{ $name }}
  value: {{ $value | toString | quote }}
{{- end }}
{{- with $s.extraEnvVars }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Peers allowed to scrape metrics; nothing is rendered when the list is empty (an empty `from` would mean everyone). */}}
{{- define "odds.metricsIngress" -}}
{{- if .root.Values.networkPolicy.metricsFrom }}
- from:
    {{- toYaml .root.Values.networkPolicy.metricsFrom | nindent 4 }}
  ports:
    - port: {{ .port }}
      protocol: TCP
{{- end }}
{{- end -}}

{{/*
Egress allow-list of one workload (networkPolicy.egress.enabled): DNS, the release services it
calls, the stores it reads and the OTLP collector. Call with (dict "root" $ "component" "edge").
*/}}
{{- define "odds.egress" -}}
{{- $root := .root -}}
{{- $np := $root.Values.networkPolicy.egress -}}
{{- $calls := dict "envoy" (list "edge") "edge" (list "events" "history" "catalogue" "usage") "ingest" (list "events" "history" "catalogue") -}}
{{- $usesStores := has .component (list "edge" "events" "history" "catalogue" "usage" "ingest" "archiver") -}}
- to:
    {{- toYaml $np.dnsTo | nindent 4 }}
  ports:
    - port: 53
      protocol: UDP
    - port: 53
      protocol: TCP
{{- range $callee := (index $calls .component | default list) }}
- to:
    - podSelector:
        matchLabels:
          {{- include "odds.selectorLabels" (dict "root" $root "component" $callee) | nindent 10 }}
  ports:
    - port: {{ ternary $root.Values.edge.httpPort (index $root.Values $callee).grpcPort (eq $callee "edge") }}
      protocol: TCP
{{- end }}
{{- if and $usesStores $np.storesTo }}
- to:
    {{- toYaml $np.storesTo | nindent 4 }}
  ports:
    {{- range $np.storePorts }}
    - port: {{ . }}
      protocol: TCP
    {{- end }}
{{- end }}
{{- if and $root.Values.otel.enabled $np.collectorTo }}
- to:
    {{- toYaml $np.collectorTo | nindent 4 }}
  ports:
    - port: {{ $root.Values.otel.collectorPort }}
      protocol: TCP
{{- end }}
{{- if and (eq .component "ingest") $np.ingestTo }}
{{ toYaml $np.ingestTo }}
{{- end }}
{{- end -}}
