"""A task for the worker tests: proves a real worker picked a message from the broker."""

from pathlib import Path

from celery import shared_task


@shared_task(name="probe_tasks.touch")
def touch(path: str) -> None:
    """Create the file ``path``."""
    Path(path).write_text("done")
