"""From user text to a FitQuery: word tables, value parsing, the command grammar, free text.

The public face is `estimator.parse`; the modules here are its parts.
"""
