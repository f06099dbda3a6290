"""Tools that refuse an argument they do not name.

The ``mcp`` SDK builds a tool's argument model from the function's signature and ignores any
other argument, so a misspelled ``topk`` is dropped and the call runs on the default: for a
model calling tools, the worst outcome, where the REST service and the CLI refuse an unknown
field. :class:`StrictTools` builds each tool as the SDK does (``Tool.from_function``), then
forbids extra arguments in its argument model (the SDK reads ``FuncMetadata.arg_model`` at each
call) and says so in the published input schema (``"additionalProperties": false``). The tools
go to the server through its ``tools=`` argument.

Arguments that fail the tool's argument model come back as the SDK's tool error, but with the
text the other tool errors have (``validation_failed: top_k: Input should be less than or
equal to 100``; an unknown argument names the tool's arguments and the closest one) instead of
pydantic's several lines with a ``https://errors.pydantic.dev`` link.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, ValidationError

from engrava_graph.model.errors import unknown_field_problem, validation_message

F = TypeVar("F", bound=Callable[..., Any])


class StrictTools:
    """Collects tools with a decorator shaped as ``MCPServer.tool`` (``@tools.tool(annotations=
    ...)``); :attr:`built` is the list for ``MCPServer(tools=...)``, in registration order."""

    def __init__(self) -> None:
        self.built: list[Tool] = []

    def tool(self, *, annotations: ToolAnnotations) -> Callable[[F], F]:
        """Register the decorated function as a tool that refuses unknown arguments.

        Args:
            annotations: the tool's MCP hints (read-only, destructive, idempotent).

        Returns:
            The decorator; it returns the function unchanged.
        """

        def register(fn: F) -> F:
            self.built.append(strict(Tool.from_function(fn, annotations=annotations)))
            return fn

        return register


class _StrictTool(Tool):
    """A tool whose refused arguments read as one line per problem (:func:`argument_problems`)."""

    async def run(
        self, arguments: dict[str, Any], context: Any, convert_result: bool = False
    ) -> Any:
        """The SDK's ``run``; an argument-validation failure (the SDK's ``ToolError`` caused by
        pydantic's ``ValidationError``; the tool's own failures arrive as ``ToolError`` caused by
        a ``ToolError``) is raised again with :func:`argument_problems`' text."""
        try:
            return await super().run(arguments, context, convert_result=convert_result)
        except ToolError as error:
            cause = error.__cause__
            if isinstance(error, UnexpectedToolError) or not isinstance(cause, ValidationError):
                raise
            problems = argument_problems(self.name, self.fn_metadata.arg_model, cause)
            raise ToolError(
                f"Error executing tool {self.name}: validation_failed: {problems}"
            ) from cause


def argument_problems(tool: str, model: type[BaseModel], error: ValidationError) -> str:
    """``error`` (the arguments of ``tool`` against its argument ``model``) as
    ``argument: why`` per problem, joined by ``"; "``: no URL, no input echo; an unknown
    argument names the ones ``tool`` takes (and the closest, for a typo)."""
    problems = []
    for e in error.errors(include_url=False):
        loc = tuple(e["loc"])
        where = ".".join(str(part) for part in loc)
        unknown = (
            unknown_field_problem(model, loc, kind="argument", owner=tool)
            if e["type"] == "extra_forbidden"
            else None
        )
        why = unknown or validation_message(e)
        problems.append(f"{where}: {why}" if where else why)
    return "; ".join(problems)


def strict(tool: Tool) -> Tool:
    """``tool`` with an argument model that forbids extra arguments (a call naming one is a
    validation error naming it and the arguments the tool takes) and an input schema that says
    ``"additionalProperties": false``, whose refused arguments read as :func:`argument_problems`
    says; everything else as it was."""
    loose = tool.fn_metadata.arg_model
    forbidding: type[BaseModel] = type(
        loose.__name__,
        (loose,),
        {"model_config": ConfigDict(extra="forbid"), "__module__": loose.__module__},
    )
    metadata = tool.fn_metadata.model_copy(update={"arg_model": forbidding})
    fields = {name: getattr(tool, name) for name in type(tool).model_fields}
    return _StrictTool(
        **{
            **fields,
            "fn_metadata": metadata,
            "parameters": forbidding.model_json_schema(by_alias=True),
        }
    )
