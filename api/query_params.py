"""Query strings hold only the parameters an endpoint declares.

FastAPI ignores a query parameter no endpoint declares, so ``GET /v1/thoughts?thoughttype=NOTE``
(a typo of ``thought_type``) would answer the unfiltered list as if the filter had held. Request
bodies already refuse unknown fields; :func:`refuse_unknown_query_params`, a router dependency,
does the same for query strings: 422 ``invalid_request`` naming the parameter and the ones the
endpoint takes.
"""

from __future__ import annotations

from fastapi import Request
from fastapi.dependencies.models import Dependant
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute


def declared_query_params(route: APIRoute) -> frozenset[str]:
    """The query parameter names (aliases) ``route`` declares, its dependencies' included."""
    return frozenset(_query_names(route.dependant))


def _query_names(dependant: Dependant) -> list[str]:
    return [p.alias for p in dependant.query_params] + [
        name for sub in dependant.dependencies for name in _query_names(sub)
    ]


async def refuse_unknown_query_params(request: Request) -> None:
    """Router dependency: refuse a query parameter the matched endpoint does not declare.

    Raises:
        RequestValidationError: one ``extra_forbidden`` error per unknown parameter, located
            ``("query", name)`` (the service answers 422 ``invalid_request`` naming it).
    """
    route = request.scope.get("route")
    if not isinstance(route, APIRoute):
        return
    declared = declared_query_params(route)
    unknown = [name for name in request.query_params if name not in declared]
    if not unknown:
        return
    takes = (
        f"it takes {', '.join(sorted(declared))}" if declared else "it takes no query parameters"
    )
    raise RequestValidationError(
        [
            {
                "type": "extra_forbidden",
                "loc": ("query", name),
                "msg": f"unknown query parameter; {takes}",
                "input": request.query_params.get(name),
            }
            for name in unknown  # each name once: a repeated parameter is one key
        ]
    )
