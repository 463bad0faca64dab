#!/usr/bin/env python3
"""Drives `searchlight mcp` with the reference MCP client library (pip install mcp), the way
a user's assistant would: handshake, list tools, call the search tool, read a returned item.

usage: scripts/mcp-client-check.py SEARCHLIGHT_BINARY INDEX.db
"""
import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(binary: str, db: str) -> None:
    params = StdioServerParameters(
        command=binary, args=["mcp", "--db", db],
        env={**os.environ, "SEARCHLIGHT_NOW": "2026-11-29T12:00:00Z", "TZ": "UTC"})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            print("protocol:", init.protocol_version, "server:", init.server_info.name)
            tools = await session.list_tools()
            print("tools:", [t.name for t in tools.tools])
            arguments = {"query": {"type": "search", "value": {
                "root": {"type": "allText", "value": {"terms": ["kitchen", "remodel"]}}, "pageSize": 3}}}
            result = await session.call_tool("search_items", arguments)
            print("isError:", result.is_error)
            print(result.content[0].text)
            replies = result.structured_content["replies"]
            first = replies[0]["content"]["items"][0]["id"]
            print("replies:", len(replies), "first item:", first)
            bad = await session.call_tool("search_items", {"query": {"type": "serch", "value": {}}})
            print("invalid call isError:", bad.is_error, "|", bad.content[0].text.splitlines()[1])
            resources = await session.list_resources()
            print("resources:", [str(r.uri) for r in resources.resources][:3])
            item = await session.read_resource(f"searchlight://item/{first}")
            print("read:", json.loads(item.contents[0].text)["attributes"]["title"])


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
