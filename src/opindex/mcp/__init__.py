"""The MCP server: opindex's search tools for LLM clients (the only code using the MCP SDK).

``opindex.mcp.server.build_server`` builds the server; ``opindex.mcp.serving`` runs it over
stdio or streamable HTTP; ``opindex.mcp.tools.TOOL_NAMES`` lists the tools.
"""
