"""Query strings hold only the parameters an endpoint declares.

FastAPI ignores a query parameter no endpoint declares, so ``GET /v1/thoughts?thoughttype=NOTE``
(a typo of ``thought_type``) would answer the unfiltered list as if the filter had held. Request
bodies already refuse unknown fields; :func:`check_query_params`, called by every ``/v1`` route's
access dependency once the caller is authorised, does the same for query strings: 422
``invalid_request`` naming the parameter, the closest declared one (a typo) and the ones the
endpoint takes. Every parameter is a single value, and FastAPI keeps the last of a repeated one
(``?limit=1&limit=2`` lists 2), so a repeated parameter is refused too. Probes (``/healthz``,
``/readyz``) are not checked.
"""

from __future__ import annotations

from fastapi import Request
from fastapi.dependencies.models import Dependant
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute

from engrava_graph.model.errors import unknown_name_message


def declared_query_params(route: APIRoute) -> frozenset[str]:
    """The query parameter names (aliases) ``route`` declares, its dependencies' included."""
    return frozenset(_query_names(route.dependant))


def _query_names(dependant: Dependant) -> list[str]:
    return [p.alias for p in dependant.query_params] + [
        name for sub in dependant.dependencies for name in _query_names(sub)
    ]


def check_query_params(request: Request) -> None:
    """Refuse a query parameter the matched endpoint does not declare, or one given twice.

    Raises:
        RequestValidationError: one ``extra_forbidden`` error per unknown parameter, else one
            ``repeated_parameter`` error per repeated one, located ``("query", name)`` (the
            service answers 422 ``invalid_request`` naming it).
    """
    route = request.scope.get("route")
    if not isinstance(route, APIRoute):
        return
    declared = declared_query_params(route)
    unknown = [name for name in request.query_params if name not in declared]
    if not unknown:
        _refuse_repeated(request)
        return
    raise RequestValidationError(
        [
            {
                "type": "extra_forbidden",
                "loc": ("query", name),
                "msg": unknown_name_message(name, declared, kind="query parameter"),
                "input": request.query_params.get(name),
            }
            for name in unknown  # each name once: a repeated parameter is one key
        ]
    )


def _refuse_repeated(request: Request) -> None:
    params = request.query_params
    repeated = [name for name in params if len(params.getlist(name)) > 1]
    if repeated:
        raise RequestValidationError(
            [
                {
                    "type": "repeated_parameter",
                    "loc": ("query", name),
                    "msg": f"given {len(params.getlist(name))} times; give it once",
                    "input": params.getlist(name),
                }
                for name in repeated
            ]
        )
