"""Tools that refuse an argument they do not name.

The ``mcp`` SDK builds a tool's argument model from the function's signature and ignores any
other argument, so a misspelled ``topk`` is dropped and the call runs on the default: for a
model calling tools, the worst outcome, where the REST service and the CLI refuse an unknown
field. :class:`StrictTools` builds each tool as the SDK does (``Tool.from_function``), then
forbids extra arguments in its argument model (the SDK reads ``FuncMetadata.arg_model`` at each
call) and says so in the published input schema (``"additionalProperties": false``). The tools
go to the server through its ``tools=`` argument.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.mcpserver.tools import Tool
from mcp.types import ToolAnnotations
from pydantic import BaseModel, ConfigDict

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


def strict(tool: Tool) -> Tool:
    """``tool`` with an argument model that forbids extra arguments (a call naming one is a
    validation error naming it: "Extra inputs are not permitted") and an input schema that says
    ``"additionalProperties": false``; everything else as it was."""
    loose = tool.fn_metadata.arg_model
    forbidding: type[BaseModel] = type(
        loose.__name__,
        (loose,),
        {"model_config": ConfigDict(extra="forbid"), "__module__": loose.__module__},
    )
    metadata = tool.fn_metadata.model_copy(update={"arg_model": forbidding})
    return tool.model_copy(
        update={
            "fn_metadata": metadata,
            "parameters": forbidding.model_json_schema(by_alias=True),
        }
    )
