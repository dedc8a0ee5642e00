# syntax=docker/dockerfile:1
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    GPURADAR_DB_PATH=/data/gpuradar.sqlite3

WORKDIR /app

# Dependencies first, so a code change does not reinstall them.
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

HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-m", "bot.healthcheck"]

CMD ["python", "-m", "bot"]
