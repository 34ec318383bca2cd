"""REST API of the ladders under ``/api/v1/``."""
