"""REST API of the stream app, one module per subject: ``cognitive_stream``
(``/api/cognitive-stream/...``, ``/api/whoami``) and ``planning``
(``/api/tasks...``)."""
