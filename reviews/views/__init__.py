"""Pages of the reviews app: queues and a reviewer's sitting
(``queues``, ``sitting``) and score configs (``configs``)."""
