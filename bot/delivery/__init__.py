"""Alert delivery: the outbox is rendered into one message per chat and sent under Telegram's
limits (render, sender), and the alert buttons are answered (handlers)."""
