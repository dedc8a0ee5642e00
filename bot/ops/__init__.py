"""Operations: the /healthz and /metrics server, Prometheus metrics, the webhook endpoint."""
