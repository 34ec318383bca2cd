"""The transactional outbox: every email the platform sends is first a row, written in the
transaction of what caused it, then sent by a task that marks it sent only once the SMTP server
accepted it. See :mod:`outbox.services` for the API."""
