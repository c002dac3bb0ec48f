"""HTML pages of the stream app, one module per subject: ``cognitive_stream``
(the agents' streams) and ``planning`` (their planning tasks)."""
