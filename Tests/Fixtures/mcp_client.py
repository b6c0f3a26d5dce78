#!/usr/bin/env python3
"""Drives `vault mcp` with the official Python MCP SDK (`pip install mcp`) as the client.

    python3 mcp_client.py SCENARIO VAULT_BINARY VAULT_DIR [EXTRA]

Scenarios: tools, handedit, subscribe, cancel (EXTRA: the room whose model streams forever),
handfirst (EXTRA: a diary entry edited by hand), secret (EXTRA: a room whose server refuses
OPENAI_API_KEY), bad, readonly, raw, conflict (EXTRA: a room and the ids of its two versions). Each prints `ok: …` lines and exits 0, or prints what went wrong on
standard error and exits 1. Exit 3: the `mcp` package is not importable.
Used by Tests/VaultMCPTests and Benchmarks/mcp-bench.sh.
"""

import json
import os
import subprocess
import sys
import time
import warnings

try:
    import anyio
    from mcp import ClientSession, StdioServerParameters, types
    from mcp.client.stdio import stdio_client
except ImportError as e:  # pragma: no cover
    print(f"the Python package mcp is not importable: {e}", file=sys.stderr)
    sys.exit(3)

# resources/subscribe is the handshake revisions' way (2025-11-25), which vault mcp speaks.
warnings.filterwarnings("ignore", message="resources/subscribe")
CLIENT = types.Implementation(name="vault-tests", version="1.0")


def check(condition, what):
    if not condition:
        raise AssertionError(what)
    print(f"ok: {what}", flush=True)


def structured(result):
    assert not result.is_error, f"tool error: {text(result)}"
    return result.structured_content


def text(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


class Session:
    """A session with `vault mcp` over stdio, with the notifications it received."""

    def __init__(self, binary, vault, extra_args=()):
        # The SDK passes only a few safe variables on; the tests' own are added.
        env = {k: v for k, v in os.environ.items() if k.startswith(("OPENAI_", "VAULT_", "XDG_"))}
        self.params = StdioServerParameters(
            command=binary, args=["mcp", "--vault", vault, *extra_args], env={"LANG": "C.UTF-8", **env}
        )
        self.notifications = []

    async def handler(self, message):
        if isinstance(message, Exception):
            return
        root = getattr(message, "root", message)
        if isinstance(root, types.ResourceUpdatedNotification):
            self.notifications.append(str(root.params.uri))
        elif isinstance(root, types.ResourceListChangedNotification):
            self.notifications.append("list_changed")


async def tools(binary, vault):
    s = Session(binary, vault)
    async with stdio_client(s.params) as (r, w), ClientSession(r, w, client_info=CLIENT) as session:
        init = await session.initialize()
        check(init.server_info.name == "vault", "initialize names the server vault")
        names = {t.name for t in (await session.list_tools()).tools}
        expected = {"list_rooms", "read", "search", "recent_activity", "history", "write_diary_entry",
                    "edit_entry", "set_tags", "chat", "append_message"}
        check(expected <= names, f"tools/list has {sorted(expected)}")
        for t in (await session.list_tools()).tools:
            assert t.description and t.input_schema.get("type") == "object", t.name

        rooms = structured(await session.call_tool("list_rooms", {"limit": 3}))["rooms"]
        check(len(rooms) == 3 and all("unread" in r and "interrupted" in r for r in rooms),
              "list_rooms gives 3 rooms with unread and interrupted marks")
        times = [r["last_activity"] for r in rooms]
        check(times == sorted(times, reverse=True), "list_rooms is most recent first")

        room = structured(await session.call_tool("read", {"item": "부산-여행", "offset": 0, "limit": 2}))
        check(room["kind"] == "room" and len(room["messages"]) == 2 and room["next_offset"] == 2,
              "read pages a room by messages (offset 0, limit 2)")
        m = room["messages"][0]
        check(m["id"].startswith("m-") and m["time"] and m["role"] in ("user", "assistant"),
              "each message has an id, a time and a role")
        last = structured(await session.call_tool("read", {"item": "부산 여행", "offset": -1, "limit": 5}))
        check(len(last["messages"]) == 1 and last["next_offset"] is None, "a negative offset counts from the end")

        hits = structured(await session.call_tool("search", {"query": "해운대", "role": "assistant"}))
        check(hits["total_hits"] > 0 and all(h["role"] == "assistant" and h["message_id"].startswith("m-")
                                             for h in hits["hits"]), "search with role gives hits with message ids")
        scoped = structured(await session.call_tool("search", {"query": "부산", "room": "부산-여행"}))
        check(scoped["hits"] and all(h["path"] == "rooms/부산-여행.md" for h in scoped["hits"]),
              "search within a room")
        diary_hits = structured(await session.call_tool("search", {"query": "a", "kind": "diary", "limit": 3}))
        check(all(h["kind"] == "diary" for h in diary_hits["hits"]), "search kind=diary gives only diary hits")
        dated = structured(await session.call_tool("search", {"query": "부산", "since": "2099-01-01"}))
        check(dated["total_hits"] == 0, "search since a future day finds nothing")

        recent = structured(await session.call_tool("recent_activity", {"since": "2000-01-01", "limit": 5}))
        check(len(recent["items"]) == 5 and all(i["changes"] and "by_sync" in i["changes"][0] for i in recent["items"]),
              "recent_activity lists items with the commits that changed them")

        written = structured(await session.call_tool(
            "write_diary_entry",
            {"text": "## 아침\n\n눈이 왔다.\n\n## 저녁\n\n따뜻한 차.", "title": "MCP 첫눈", "date": "2026-11-21",
             "tags": ["겨울"]}))
        path = written["path"]
        check(path.startswith("diary/") and path.endswith(".md"), f"write_diary_entry wrote {path}")
        # The last section runs to the end of the entry: replaced before the append.
        for op, args in [("replace_section", {"section": "저녁", "text": "차 대신 코코아."}),
                         ("append", {"text": "덧붙임 끝."}), ("prepend", {"text": "머리말."}),
                         ("find_replace", {"find": "눈이", "text": "첫눈이", "expected_count": 1})]:
            out = structured(await session.call_tool("edit_entry", {"item": path, "operation": op, **args}))
            check(out["committed"], f"edit_entry {op} committed")
        entry = structured(await session.call_tool("read", {"item": path}))
        body = entry["text"]
        check(body.startswith("머리말.") and body.rstrip().endswith("덧붙임 끝.") and "코코아" in body
              and "따뜻한 차" not in body and "첫눈이 왔다" in body, f"the entry reads as the four edits left it: {body!r}")
        bad = await session.call_tool("edit_entry", {"item": path, "operation": "find_replace", "find": "없는 말",
                                                     "text": "x", "expected_count": 1})
        check(bad.is_error and "occurs 0 times" in text(bad), "find_replace with the wrong count is refused")
        tags = structured(await session.call_tool("set_tags", {"item": path, "add": ["mcp"], "remove": ["겨울"]}))
        check(tags["tags"] == ["mcp"], "set_tags adds and removes")
        hist = structured(await session.call_tool("history", {"item": path}))
        check(len(hist["commits"]) == 6, f"history of the entry has its 6 commits ({len(hist['commits'])})")
        check(all("(via MCP: vault-tests)" in c["summary"] for c in hist["commits"]),
              "every commit names the client")

        said = structured(await session.call_tool("append_message", {"room": "부산-여행", "text": "MCP에서 인사"}))
        check(said["message_id"].startswith("m-") and said["author"] == "vault-tests",
              "append_message adds a message with the client's name as its author")
        last = structured(await session.call_tool("read", {"item": "부산-여행", "offset": -1, "limit": 1}))["messages"][0]
        check(last["id"] == said["message_id"] and last["author"] == "vault-tests" and "MCP에서 인사" in last["text"],
              "and the room reads it with its author")
        reply = structured(await session.call_tool("append_message", {"room": "부산-여행", "text": "답장",
                                                                       "reply_to": said["message_id"]}))
        check(reply["message_id"] != said["message_id"], "append_message with reply_to")
        mine = structured(await session.call_tool("search", {"query": "MCP에서", "author": "VAULT-tests"}))
        check(mine["total_hits"] >= 1 and all(h.get("author") == "vault-tests" for h in mine["hits"]),
              "search by author finds the client's messages, with their author")
        bad_reply = await session.call_tool("append_message", {"room": "부산-여행", "text": "x", "reply_to": "m-NOPE"})
        check(bad_reply.is_error, "reply_to a message the room does not hold is refused")
        chat = structured(await session.call_tool("chat", {"room": "독서-모임-발제문", "message": "안녕 MCP"}))
        check(chat["reply_id"].startswith("m-") and chat["reply"], "chat runs a turn (offline echo)")

        resources = (await session.list_resources()).resources
        uris = [str(r.uri) for r in resources]
        check("vault://rooms/부산-여행.md" in uris and any(u.startswith("vault://diary/") for u in uris),
              "resources/list has rooms and entries")
        content = (await session.read_resource("vault://rooms/독서-모임-발제문.md")).contents[0].text
        check("안녕 MCP" in content, "resources/read gives the room as it is now")

        prompts = {p.name for p in (await session.list_prompts()).prompts}
        check({"summarize_room", "continue_diary"} <= prompts, "prompts/list has both prompts")
        got = await session.get_prompt("summarize_room", {"room": "부산-여행"})
        check("m-" in got.messages[0].content.text, "summarize_room includes the room's messages")
        got = await session.get_prompt("continue_diary", {})
        check("write_diary_entry" in got.messages[0].content.text, "continue_diary prompt")
        print(json.dumps({"entry": path}), flush=True)


async def handedit(binary, vault, searching="scan"):
    """searching: "scan" (no index), or "index": the index built first with `vault search --index`,
    so the server's searches go through it and ask the search watcher what changed."""
    if searching == "index":
        subprocess.run([binary, "search", "--vault", vault, "--index", "-l", "김치찌개"], check=True,
                       stdout=subprocess.DEVNULL, env={"LANG": "C.UTF-8", **os.environ})
    s = Session(binary, vault)
    async with stdio_client(s.params) as (r, w), ClientSession(r, w, client_info=CLIENT) as session:
        await session.initialize()
        path = os.path.join(vault, "rooms", "김치찌개-레시피.md")
        # A search before the edit (through the index, it starts the watcher that sees the edit).
        before = structured(await session.call_tool("search", {"query": "zebra-quartz-42"}))
        check(before["total_hits"] == 0, "nothing found before the hand edit")
        with open(path, "a", encoding="utf-8") as f:
            f.write("\n손으로 쓴 줄 zebra-quartz-42\n")
        hits = structured(await session.call_tool("search", {"query": "zebra-quartz-42"}))
        check(hits["total_hits"] == 1, "a hand edit is found by the very next search")
        room = structured(await session.call_tool("read", {"item": "김치찌개-레시피", "offset": -1, "limit": 1}))
        check("zebra-quartz-42" in room["messages"][-1]["text"] + (room["pending_prompt"] or ""),
              "and returned by the next read")
        recent = structured(await session.call_tool("recent_activity", {"since": "today"}))
        check(any(i["path"] == "rooms/김치찌개-레시피.md" and i["edited_by_hand"] for i in recent["items"]),
              "and shown by recent_activity as edited by hand")
        os.remove(path)
        hits = structured(await session.call_tool("search", {"query": "zebra-quartz-42"}))
        check(hits["total_hits"] == 0, "a deleted file is never found")
        # Once the deletion is committed (here by git), the room's history is still found by its name.
        subprocess.run(["git", "-C", vault, "-c", "user.name=t", "-c", "user.email=t@example.com",
                        "commit", "-qam", "rm by hand"], check=True)
        hist = structured(await session.call_tool("history", {"item": "김치찌개-레시피"}))
        check(hist["path"] == "rooms/김치찌개-레시피.md" and len(hist["commits"]) >= 2,
              f"history finds a deleted room by its name ({hist})")
        outside = await session.call_tool("history", {"item": "../../etc/passwd"})
        check(outside.is_error, "history of a path outside the vault is an error")


async def subscribe(binary, vault, watching="watch"):
    """A subscription sees a hand edit; with the watcher, a room made by hand changes the list."""
    s = Session(binary, vault)
    async with stdio_client(s.params) as (r, w), \
            ClientSession(r, w, client_info=CLIENT, message_handler=s.handler) as session:
        init = await session.initialize()
        listed = init.capabilities.resources.list_changed
        check(listed == (watching == "watch"), f"resources.listChanged is {listed} ({watching})")
        await session.list_resources()
        uri = "vault://rooms/부산-여행.md"
        await session.subscribe_resource(uri)

        async def wait_for(what):
            deadline = time.monotonic() + 5
            while what not in s.notifications and time.monotonic() < deadline:
                await anyio.sleep(0.05)
            return what in s.notifications

        await anyio.sleep(0.3)
        with open(os.path.join(vault, "rooms", "부산-여행.md"), "a", encoding="utf-8") as f:
            f.write("\n손으로 덧붙인 줄\n")
        check(await wait_for(uri), "a hand edit of a subscribed room is notified")
        content = (await session.read_resource(uri)).contents[0].text
        check("손으로 덧붙인 줄" in content, "and read as edited")
        other = "vault://rooms/김치찌개-레시피.md"
        s.notifications.clear()
        with open(os.path.join(vault, "rooms", "김치찌개-레시피.md"), "a", encoding="utf-8") as f:
            f.write("\n구독하지 않은 방\n")
        await anyio.sleep(0.6)
        check(other not in s.notifications, "a room not subscribed to is not notified")
        if watching == "watch":
            with open(os.path.join(vault, "rooms", "새-방.md"), "w", encoding="utf-8") as f:
                f.write("---\ntitle: 새 방\ncreated: 2026-11-26T09:00:00+09:00\n---\n")
            check(await wait_for("list_changed"), "a room made by hand changes the list")
            uris = [str(x.uri) for x in (await session.list_resources()).resources]
            check("vault://rooms/새-방.md" in uris, "and is listed")
        s.notifications.clear()
        os.remove(os.path.join(vault, "rooms", "부산-여행.md"))
        check(await wait_for(uri), "a subscribed room removed by hand is notified")


async def cancel(binary, vault, room):
    s = Session(binary, vault)
    pieces = []
    async with stdio_client(s.params) as (r, w), ClientSession(r, w, client_info=CLIENT) as session:
        await session.initialize()

        async def progress(done, total, message):
            pieces.append(message)

        with anyio.move_on_after(3):
            await session.call_tool("chat", {"room": room, "message": "끝없이 말해 줘"},
                                    progress_callback=progress)
        check(len(pieces) > 0, f"the reply streamed as progress notifications ({len(pieces)} pieces)")
        # The server is still there, and the turn was stopped: the room reads with the reply, interrupted.
        deadline = time.monotonic() + 10
        last = None
        while time.monotonic() < deadline:
            read = structured(await session.call_tool("read", {"item": room, "offset": -1, "limit": 1}))
            last = read["messages"][-1]
            if last["status"] == "interrupted":
                break
            await anyio.sleep(0.1)
        check(last["role"] == "assistant" and last["status"] == "interrupted",
              "cancelling stops the reply; what arrived is saved, marked interrupted")
        await session.send_ping()
        check(True, "the server answers a ping after the cancellation")


async def handfirst(binary, vault, entry):
    """An edit through the server after a hand edit of the same entry: the hand edit is its own commit first."""
    s = Session(binary, vault)
    async with stdio_client(s.params) as (r, w), ClientSession(r, w, client_info=CLIENT) as session:
        await session.initialize()
        out = structured(await session.call_tool("edit_entry", {"item": entry, "operation": "append",
                                                                "text": "서버가 덧붙임."}))
        check(out["committed"], "edit_entry after a hand edit committed")
        body = structured(await session.call_tool("read", {"item": entry}))["text"]
        check("손으로 고친 줄" in body and body.rstrip().endswith("서버가 덧붙임."), "both the hand edit and the edit are kept")


async def conflict(binary, vault, room, first, second):
    """read of a room with a message kept in two versions: each says which it is and names the other."""
    s = Session(binary, vault)
    async with stdio_client(s.params) as (r, w), ClientSession(r, w, client_info=CLIENT) as session:
        await session.initialize()
        messages = structured(await session.call_tool("read", {"item": room}))["messages"]
        marks = {m["id"]: m.get("conflict") for m in messages}
        check(marks.get(first) == {"version": 1, "other_version": second}, f"the first version is marked: {marks.get(first)}")
        check(marks.get(second) == {"version": 2, "other_version": first}, f"the second version is marked: {marks.get(second)}")
        check(all(v is None for k, v in marks.items() if k not in (first, second)), "no other message is marked")


async def secret(binary, vault, room):
    """A chat turn the server refuses for its key: the key is in no answer."""
    key = os.environ["OPENAI_API_KEY"]
    s = Session(binary, vault)
    async with stdio_client(s.params) as (r, w), ClientSession(r, w, client_info=CLIENT) as session:
        await session.initialize()
        out = await session.call_tool("chat", {"room": room, "message": "안녕"})
        check(out.is_error and "API key" in text(out), f"the refusal is a tool error: {text(out)}")
        check(key not in text(out), "the API key is not in the error")
        everything = [out]
        for tool, args in [("read", {"item": room}), ("search", {"query": key[:12]}),
                           ("recent_activity", {"since": "2000-01-01"})]:
            everything.append(await session.call_tool(tool, args))
        config = await session.call_tool("read", {"item": "vault.yml"})
        check(config.is_error, "vault.yml is not an item read can name")
        check(all(key not in text(o) for o in everything), "no answer holds the API key")


async def paging(binary, vault, expected):
    """resources/list in pages: every room and entry once."""
    s = Session(binary, vault)
    async with stdio_client(s.params) as (r, w), ClientSession(r, w, client_info=CLIENT) as session:
        await session.initialize()
        uris, pages, cursor = [], 0, None
        while True:
            page = await session.list_resources(params=types.PaginatedRequestParams(cursor=cursor))
            uris += [str(x.uri) for x in page.resources]
            pages += 1
            cursor = page.next_cursor
            if not cursor:
                break
        check(pages >= 2 and len(uris) == int(expected) and len(set(uris)) == len(uris),
              f"resources/list pages ({pages}) give every room and entry once ({len(uris)})")
        try:
            await session.list_resources(params=types.PaginatedRequestParams(cursor="x"))
            raise AssertionError("a cursor of another server was taken")
        except Exception as e:
            check("not a cursor" in str(e), "a cursor the server did not give is an error")


async def bad(binary, vault):
    s = Session(binary, vault)
    async with stdio_client(s.params) as (r, w), ClientSession(r, w, client_info=CLIENT) as session:
        await session.initialize()
        try:
            await session.call_tool("no_such_tool", {})
            raise AssertionError("an unknown tool was accepted")
        except Exception as e:  # MCPError
            check("no tool named" in str(e), "an unknown tool is a JSON-RPC error")
        missing = await session.call_tool("read", {})
        check(missing.is_error and "missing argument 'item'" in text(missing), "a missing argument is a tool error")
        typo = await session.call_tool("read", {"itme": "부산-여행"})
        check(typo.is_error and "unknown argument 'itme'" in text(typo), "a misspelt argument is a tool error naming it")
        wrong = await session.call_tool("read", {"item": 7})
        check(wrong.is_error and "must be a string" in text(wrong), "a mistyped argument is a tool error")
        for name in ["../../etc/passwd", "/etc/passwd", "rooms/../../../etc/passwd"]:
            out = await session.call_tool("read", {"item": name})
            check(out.is_error and "root:" not in text(out), f"{name} names nothing")
        out = await session.call_tool("edit_entry", {"item": "../../etc/passwd", "operation": "append", "text": "x"})
        check(out.is_error, "an edit of ../../etc/passwd is refused")
        try:
            await session.read_resource("vault://../../etc/passwd")
            raise AssertionError("vault://../../etc/passwd was read")
        except Exception as e:
            check("no room or diary entry" in str(e), "resources/read of vault://../../etc/passwd is an error")
        try:
            await session.call_tool("write_diary_entry", {"text": "x" * (2 * 1024 * 1024)})
            raise AssertionError("a 2 MB message was accepted")
        except Exception as e:
            check("larger than" in str(e), "a 2 MB message is a JSON-RPC error")
        await session.send_ping()
        check(True, "the server goes on after each")


async def readonly(binary, vault):
    s = Session(binary, vault, ["--read-only"])
    async with stdio_client(s.params) as (r, w), ClientSession(r, w, client_info=CLIENT) as session:
        await session.initialize()
        names = {t.name for t in (await session.list_tools()).tools}
        check(names == {"list_rooms", "read", "search", "recent_activity", "history"},
              f"--read-only lists only the reading tools ({sorted(names)})")
        try:
            await session.call_tool("write_diary_entry", {"text": "x"})
            raise AssertionError("a write tool ran on a read-only server")
        except Exception as e:
            check("read-only" in str(e), "a write tool is refused on a read-only server")


def raw(binary, vault):
    """Bytes no SDK sends: malformed JSON, a batch, a request with no method, an unknown method."""
    lines = [
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}',
        b'{not json',
        b'[{"jsonrpc":"2.0","id":2,"method":"ping"}]',
        b'{"jsonrpc":"2.0","id":3}',
        b'{"jsonrpc":"2.0","id":4,"method":"no/such"}',
        b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":"x"}',
        b'\xff\xfe',
        b'{"jsonrpc":"2.0","id":6,"method":"ping"}',
    ]
    out = subprocess.run([binary, "mcp", "--vault", vault], input=b"\n".join(lines) + b"\n",
                         capture_output=True, timeout=30)
    replies = [json.loads(line) for line in out.stdout.decode().splitlines()]
    check(all(r.get("jsonrpc") == "2.0" for r in replies), "every line on stdout is a JSON-RPC message")
    codes = [r.get("error", {}).get("code") for r in replies]
    check(codes.count(-32700) == 2, "malformed JSON and bytes that are not UTF-8 are parse errors")
    check(-32600 in codes and -32601 in codes and -32602 in codes,
          "a batch or no method, an unknown method, params that are not an object: their errors")
    check(replies[-1] == {"jsonrpc": "2.0", "id": 6, "result": {}}, "and the server answers after them")
    check(out.returncode == 0, "it ends with status 0 when its input closes")


def main():
    scenario, binary, vault = sys.argv[1:4]
    extra = sys.argv[4:]
    try:
        if scenario == "raw":
            raw(binary, vault)
        else:
            fn = {"tools": tools, "handedit": handedit, "subscribe": subscribe, "cancel": cancel,
                  "bad": bad, "readonly": readonly, "handfirst": handfirst, "secret": secret,
                  "paging": paging, "conflict": conflict}[scenario]
            anyio.run(fn, binary, vault, *extra)
    except AssertionError as e:
        print(f"FAILED: {e}", file=sys.stderr)
        sys.exit(1)
    except BaseExceptionGroup as group:
        # anyio's task groups wrap what failed inside them.
        def leaves(g):
            for e in g.exceptions:
                yield from (leaves(e) if isinstance(e, BaseExceptionGroup) else [e])
        for e in leaves(group):
            print(f"FAILED: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
