"""Text and keyboard builders for views that several routers show."""
