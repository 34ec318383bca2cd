"""The touch region of a hand card, measured in the page: shared by the hand's layout tests
(tests/browser/test_hand.py, test_hand_resize.py).

:data:`TOUCH_REGION` defines, in a page's script, ``owner(x, y)`` (the card button the page's
hit test finds at a point) and ``touchRegion(b)``: the rectangle of points, on a 2 px grid,
where the hit test finds the card button ``b`` and no other: from its first such point (top
left first), as wide as the hits go along that line and as high as whole lines of it are hit.
It returns ``{full, w, h}`` (``full``: some point hits the card at all)."""

TOUCH_REGION = """
  const owner = (x, y) => { const e = document.elementFromPoint(x, y); return e && e.closest('.card-button'); };
  const touchRegion = (b) => {
    const r = b.getBoundingClientRect();
    let x0 = null, y0 = null;
    for (let y = r.top + 1; y0 === null && y < r.bottom; y += 2) for (let x = r.left + 1; x < r.right; x += 2)
      if (owner(x, y) === b) { x0 = x; y0 = y; break; }
    let x1 = x0, y1 = y0;
    if (x0 !== null) {
      while (x1 + 2 < r.right && owner(x1 + 2, y0) === b) x1 += 2;
      const line = (y) => { for (let x = x0; x <= x1; x += 2) if (owner(x, y) !== b) return false; return true; };
      while (y1 + 2 < r.bottom && line(y1 + 2)) y1 += 2;
    }
    return {full: x0 !== null, w: x1 - x0 + 2, h: y1 - y0 + 2};
  };
"""
