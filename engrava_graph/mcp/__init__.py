"""An MCP server over the store (the `mcp` extra): tools for agents, stdio and streamable HTTP."""
