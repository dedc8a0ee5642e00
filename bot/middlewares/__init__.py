"""Outer middlewares: who is writing (user + texts), and how often they may be answered."""
