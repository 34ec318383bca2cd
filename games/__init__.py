"""The platform's one view of the games the engine knows (see :mod:`games.variants`).

Only ``engine/`` and ``games/`` name a variant; every app asks :func:`games.variants.game`.
"""
