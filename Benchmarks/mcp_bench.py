#!/usr/bin/env python3
"""Times an MCP server over stdio with the official Python MCP SDK as the client.

    python3 mcp_bench.py SERVER_KIND VAULT_OR_HOME -- COMMAND [ARG...]

SERVER_KIND is `vault` (tools: search, read) or `basic-memory` (search_notes, read_note).
Prints one JSON object: start-up to the initialize answer (a raw spawn, median of 5), the
search and read medians (20 calls each), and whether a hand edit is found by the very next
search (and a deleted file not found).
"""

import json
import os
import statistics
import subprocess
import sys
import time

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

INIT = (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
        b'"capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}\n')


def startup(command):
    """Milliseconds from spawning the server to reading its initialize answer."""
    times = []
    for _ in range(5):
        start = time.perf_counter()
        p = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        p.stdin.write(INIT)
        p.stdin.flush()
        line = p.stdout.readline()
        times.append((time.perf_counter() - start) * 1000)
        assert b'"result"' in line, line
        p.stdin.close()
        p.wait(timeout=60)
    return statistics.median(times)


async def calls(kind, folder, command):
    params = StdioServerParameters(command=command[0], args=command[1:])
    out = {}
    async with stdio_client(params) as (r, w), ClientSession(r, w) as session:
        await session.initialize()
        if kind == "vault":
            search = ("search", {"query": "부산"})
            read = ("read", {"item": "부산-여행"})
            note = os.path.join(folder, "rooms", "김치찌개-레시피.md")
        else:
            search = ("search_notes", {"query": "부산"})
            read = ("read_note", {"identifier": "부산 여행"})
            note = os.path.join(folder, "notes", "kimchi.md")
        for name, (tool, args) in [("search_ms", search), ("read_ms", read)]:
            times = []
            for _ in range(20):
                start = time.perf_counter()
                result = await session.call_tool(tool, args)
                times.append((time.perf_counter() - start) * 1000)
                assert not result.is_error, result
            out[name] = round(statistics.median(times), 2)
        word = f"handedit{int(time.time())}"
        with open(note, "a", encoding="utf-8") as f:
            f.write(f"\n{word}\n")
        query = ("search", {"query": word}) if kind == "vault" else ("search_notes", {"query": word})
        result = await session.call_tool(*query)
        out["hand_edit_found_by_next_search"] = word in "".join(getattr(c, "text", "") for c in result.content)
        os.remove(note)
        result = await session.call_tool(*query)
        out["deleted_file_found"] = word in "".join(getattr(c, "text", "") for c in result.content)
    return out


def main():
    kind, folder = sys.argv[1], sys.argv[2]
    command = sys.argv[sys.argv.index("--") + 1:]
    result = {"server": kind, "startup_to_initialize_ms": round(startup(command), 2)}
    result.update(anyio.run(calls, kind, folder, command))
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
