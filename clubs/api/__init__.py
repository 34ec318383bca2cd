"""The REST API of accounts and clubs (``/api/v1/``)."""
