"""Variant modules. Importing this package registers every variant's combo rules.

Each variant module calls :func:`engine.combo.register`; add its import here.
"""

import contextlib

# Each variant module registers itself on import; a module still being written is skipped.
with contextlib.suppress(ImportError):
    from engine.variants import guandan  # noqa: F401  (bao2 and guandan)
with contextlib.suppress(ImportError):
    from engine.variants import honger  # noqa: F401
with contextlib.suppress(ImportError):
    from engine.variants import shuangkou2  # noqa: F401
