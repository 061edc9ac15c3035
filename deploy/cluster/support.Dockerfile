# odds-local/support: the in-cluster stores of the local cluster (Debian's redis-server and the
# project's FerretDB program on SQLite) and curl for the chart's helm-test pod.
ARG BASE
FROM ${BASE}
RUN apt-get update -q && apt-get install -y -q --no-install-recommends redis-server curl ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY ferretdb-local /usr/local/bin/ferretdb-local
USER 65532:65532
