"""Statement parameters that need care on their way to the driver.

The Neo4j Python driver (5.28, and 6.x alike) formats every RUN message for its debug log
before it knows whether debug logging is on (``" ".join(map(repr, fields))`` in the Bolt
``run``), so each parameter's ``repr`` is computed on every statement. For an embedding that is
about 0.2 ms per 384 floats: half a millisecond of every retrieve's event-loop time, and 0.4 s
per 2,000-thought bulk write. A :class:`VectorParam` is a plain ``list`` to the driver's packer
(sent as a Cypher ``LIST<FLOAT>``, as before) whose ``repr`` is a few characters.
"""

from __future__ import annotations

from collections.abc import Iterable


class VectorParam(list[float]):
    """An embedding as a statement parameter: a ``list[float]`` with a short ``repr``
    (``<vector of 384 floats>``), so logging the statement costs nothing. Compares, packs and
    slices as the list it is."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<vector of {len(self)} floats>"


def vector_param(values: Iterable[float] | None) -> VectorParam | None:
    """``values`` as a :class:`VectorParam` of Python floats (NumPy scalars converted), or None
    for None."""
    return None if values is None else VectorParam(float(x) for x in values)
