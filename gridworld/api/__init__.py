"""REST API of the gridworld, one module per subject: ``batches`` (episode
batches, their episodes and receipts, receipt verification)."""
