"""Variant modules. Importing this package registers every variant's combo rules.

Each variant module calls :func:`engine.combo.register`; add its import here.
"""

from engine.variants import guandan, honger, shuangkou2  # noqa: F401  (bao2 is in guandan)
