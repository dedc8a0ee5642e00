"""Telegram face of gpuradar: routers, keyboards, texts, delivery and the composition root."""
