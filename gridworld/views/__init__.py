"""HTML pages of the gridworld, one module per subject: ``batches``."""
