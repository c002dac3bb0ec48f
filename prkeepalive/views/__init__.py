"""HTML pages of PR keepalive, one module per subject: ``pulls``."""
