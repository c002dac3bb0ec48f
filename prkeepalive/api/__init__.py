"""REST API of PR keepalive, one module per subject: ``webhook`` (GitHub's
deliveries) and ``records`` (the dry run, decisions and rounds per PR)."""
