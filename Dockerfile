# syntax=docker/dockerfile:1
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    GPURADAR_DB_PATH=/data/gpuradar.sqlite3 \
    GPURADAR_OPS_HOST=0.0.0.0 \
    GPURADAR_OPS_PORT=8080

WORKDIR /app

# The packages and their data files (locales, SQL migrations, catalogs) are installed from the tree.
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY monitor ./monitor
COPY scrapers ./scrapers
COPY estimator ./estimator
COPY storage ./storage
RUN pip install .

RUN useradd --system --uid 10001 --home-dir /app gpuradar \
    && mkdir -p /data \
    && chown gpuradar /data
USER gpuradar

VOLUME ["/data"]
# /healthz and /metrics (and the webhook in GPURADAR_MODE=webhook).
EXPOSE 8080

# Non-200 (503: database, scheduler or every provider stale; or no answer) = unhealthy.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import os, sys, urllib.request as u; port = os.environ.get('GPURADAR_OPS_PORT', '8080'); sys.exit(0 if u.urlopen(f'http://127.0.0.1:{port}/healthz', timeout=4).status == 200 else 1)"]

CMD ["python", "-m", "bot"]
