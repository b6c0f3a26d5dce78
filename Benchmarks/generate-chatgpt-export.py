#!/usr/bin/env python3
"""Generate a deterministic synthetic ChatGPT data export, for `vault import` benchmarks.

The output has the shape of the export ChatGPT's "Export data" gives:

* ``conversations.json``: a JSON array of conversations, each with ``title``,
  ``create_time``/``update_time`` (epoch seconds), ``mapping`` (a tree of nodes:
  ``id``, ``message``, ``parent``, ``children``), ``current_node``,
  ``conversation_id``/``id``, ``default_model_slug`` and the other top-level keys;
  with ``--split K`` the conversations are spread over ``conversations-000.json``,
  ``conversations-001.json``, … instead (K files);
* messages with ``author.role`` system/user/assistant/tool, ``content_type``
  ``text``, ``multimodal_text`` (an ``image_asset_pointer`` to a file
  ``file-XXXX-image.png`` written beside it), ``thoughts``, ``reasoning_recap``,
  ``code`` and ``execution_output``; ``metadata.model_slug`` on replies; a hidden
  empty system message at the root of each conversation; ``create_time`` null on
  about 1 message in 100;
* branches: about 1 conversation in 8 has a regenerated answer and 1 in 8 an
  edited question; the abandoned path stays in the mapping, ``current_node`` is
  the newest leaf;
* ``user.json``, ``chat.html`` (empty) as the export has them; ``--zip`` also
  writes ``OUT_DIR.zip`` holding the folder's files (deflated).

``--messages`` counts every message with text (abandoned branches included, the
empty root system messages not). The same seed gives byte-identical files: one
``random.Random(seed)``, no clock read.

Usage:
    Benchmarks/generate-chatgpt-export.py OUT_DIR [--seed 7] [--conversations 3000]
        [--messages 100000] [--split 0] [--images 0.02] [--zip] [--plain]

``--plain`` leaves out images, thoughts and reasoning recaps, which convoviz 0.1.7 (the
latest on the Python package index) rejects, so both tools can read the same export.

The defaults make about 3,000 conversations and 100,000 messages (~150 MB).
Only the Python 3 standard library is used.
"""

import argparse
import json
import os
import random
import zipfile

WORDS = (
    "the vault keeps every conversation as plain text so that nothing is lost when a tool goes away "
    "rooms diary entries markdown front matter git history sync merge branch commit model answer question "
    "서울 부산 여행 기차 바다 시장 음식 오늘 내일 생각 정리 대화 기록 일기 사진 친구 가족 공부 코드 함수"
).split()

MODELS = ["gpt-4o", "gpt-4o-mini", "o3", "gpt-4", "gpt-3.5-turbo"]


def sentence(rng, low=6, high=30):
    words = [rng.choice(WORDS) for _ in range(rng.randint(low, high))]
    return " ".join(words).capitalize() + "."


def body(rng, long=False):
    paragraphs = rng.randint(2, 6) if long else rng.randint(1, 2)
    out = []
    for _ in range(paragraphs):
        out.append(" ".join(sentence(rng) for _ in range(rng.randint(1, 5))))
    if long and rng.random() < 0.2:
        out.append("```python\nfor i in range(3):\n    print(i)\n```")
    if rng.random() < 0.01:
        out.append("## Header look-alike\n---\n<<<<<<< ours\nquoted \\\"text\\\"")
    return "\n\n".join(out)


class Export:
    def __init__(self, rng, images_rate, plain=False):
        self.plain = plain
        self.rng = rng
        self.images_rate = images_rate
        self.images = []
        self.ids = 0

    def uid(self):
        self.ids += 1
        return "%08x-%04x-4%03x-8%03x-%012x" % (
            self.rng.getrandbits(32), self.rng.getrandbits(16), self.rng.getrandbits(12),
            self.rng.getrandbits(12), self.ids)

    def message(self, node_id, role, content, time, model=None, hidden=False, recipient="all"):
        metadata = {}
        if model:
            metadata["model_slug"] = model
            metadata["default_model_slug"] = model
        if hidden:
            metadata["is_visually_hidden_from_conversation"] = True
        return {
            "id": node_id,
            "author": {"role": role, "name": "python" if role == "tool" else None, "metadata": {}},
            "create_time": time,
            "update_time": None,
            "content": content,
            "status": "finished_successfully",
            "end_turn": True if role == "assistant" else None,
            "weight": 1.0,
            "metadata": metadata,
            "recipient": recipient,
            "channel": None,
        }

    def user_content(self):
        rng = self.rng
        if rng.random() < self.images_rate:
            asset = "file-" + "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789") for _ in range(22))
            size = rng.randint(200, 2000)
            self.images.append((asset + "-image.png", bytes(rng.getrandbits(8) for _ in range(size))))
            return {"content_type": "multimodal_text", "parts": [
                {"content_type": "image_asset_pointer", "asset_pointer": "file-service://" + asset,
                 "size_bytes": size, "width": 512, "height": 512, "fovea": None, "metadata": None},
                sentence(rng)]}
        return {"content_type": "text", "parts": [body(rng)]}

    def reply_contents(self, model):
        """The nodes of one assistant turn: sometimes thoughts, code and its output first."""
        rng = self.rng
        out = []
        if model == "o3" and not self.plain and rng.random() < 0.5:
            out.append(("assistant", {"content_type": "thoughts", "thoughts": [
                {"summary": sentence(rng, 2, 5), "content": body(rng)}], "source_analysis_msg_id": "x"}, "all"))
            out.append(("assistant", {"content_type": "reasoning_recap", "content": "Thought for %d seconds" % rng.randint(2, 40)}, "all"))
        if rng.random() < 0.05:
            out.append(("assistant", {"content_type": "code", "language": "unknown", "response_format_name": None,
                                      "text": "print(%d)" % rng.randint(0, 999)}, "python"))
            out.append(("tool", {"content_type": "execution_output", "text": str(rng.randint(0, 999))}, "all"))
        out.append(("assistant", {"content_type": "text", "parts": [body(rng, long=True)]}, "all"))
        return out

    def conversation(self, count, start):
        """A conversation with about `count` messages; returns it and how many it has."""
        rng = self.rng
        model = rng.choice(MODELS)
        mapping = {}
        clock = [start]

        def tick():
            clock[0] += rng.randint(5, 600) + rng.random()
            return None if rng.random() < 0.01 else round(clock[0], 6)

        def add(parent, role, content, recipient="all", hidden=False):
            node_id = self.uid()
            message = None if role is None else self.message(
                node_id, role, content, tick(), model if role == "assistant" else None, hidden, recipient)
            mapping[node_id] = {"id": node_id, "message": message, "parent": parent, "children": []}
            if parent is not None:
                mapping[parent]["children"].append(node_id)
            return node_id

        root = add(None, None, None)
        system = add(root, "system", {"content_type": "text", "parts": [""]}, hidden=True)
        made = 0
        tip = system
        regenerate_at = rng.randint(1, max(1, count // 2)) if rng.random() < 0.125 else -1
        edit_at = rng.randint(1, max(1, count // 2)) if rng.random() < 0.125 else -1
        turn = 0
        while made < count:
            turn += 1
            question_parent = tip
            if turn == edit_at and made + 2 < count:
                # The original question and its answer, then abandoned for an edited question.
                old = add(question_parent, "user", self.user_content())
                add(old, "assistant", {"content_type": "text", "parts": [body(rng, long=True)]})
                made += 2
            tip = add(question_parent, "user", self.user_content())
            made += 1
            if turn == regenerate_at and made + 1 < count:
                add(tip, "assistant", {"content_type": "text", "parts": [body(rng, long=True)]})
                made += 1
            for role, content, recipient in self.reply_contents(model):
                tip = add(tip, role, content, recipient)
                made += 1
        conversation_id = self.uid()
        times = [n["message"]["create_time"] for n in mapping.values() if n["message"] and n["message"]["create_time"]]
        return {
            "title": sentence(rng, 2, 6)[:-1],
            "create_time": round(start, 6),
            "update_time": max(times) if times else round(start, 6),
            "mapping": mapping,
            "moderation_results": [],
            "current_node": tip,
            "plugin_ids": None,
            "conversation_id": conversation_id,
            "conversation_template_id": None,
            "gizmo_id": None,
            "is_archived": False,
            "safe_urls": [],
            "default_model_slug": model,
            "id": conversation_id,
        }, made


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--conversations", type=int, default=3000)
    parser.add_argument("--messages", type=int, default=100000)
    parser.add_argument("--split", type=int, default=0, help="write K files conversations-NNN.json")
    parser.add_argument("--images", type=float, default=0.02, help="share of user messages with an image")
    parser.add_argument("--zip", action="store_true", help="also write OUT.zip")
    parser.add_argument("--plain", action="store_true",
                        help="no images, thoughts or recaps: what convoviz 0.1.7 can read")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    export = Export(rng, 0 if args.plain else args.images, args.plain)
    os.makedirs(args.out, exist_ok=True)
    # Message counts per conversation: random, summing to --messages.
    weights = [rng.random() + 0.2 for _ in range(args.conversations)]
    total = sum(weights)
    counts = [max(2, int(w / total * args.messages)) for w in weights]
    counts[-1] = max(2, counts[-1] + args.messages - sum(counts))

    files = max(1, args.split)
    names = ["conversations.json"] if args.split == 0 else ["conversations-%03d.json" % k for k in range(files)]
    handles = [open(os.path.join(args.out, n), "w", encoding="utf-8") for n in names]
    first = [True] * files
    for h in handles:
        h.write("[")
    start = 1_600_000_000.0
    messages = 0
    per_file = -(-args.conversations // files)
    for k, count in enumerate(counts):
        start += rng.randint(600, 40000)
        conversation, made = export.conversation(count, start)
        messages += made
        f = k // per_file
        handles[f].write(("" if first[f] else ", ") + json.dumps(conversation, ensure_ascii=False))
        first[f] = False
    for h in handles:
        h.write("]")
        h.close()
    for name, data in export.images:
        with open(os.path.join(args.out, name), "wb") as f:
            f.write(data)
    with open(os.path.join(args.out, "user.json"), "w") as f:
        json.dump({"id": "user-bench", "email": "bench@example.com", "chatgpt_plus_user": False}, f)
    with open(os.path.join(args.out, "chat.html"), "w") as f:
        f.write("<html><body></body></html>\n")
    if args.zip:
        target = args.out.rstrip("/") + ".zip"
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
            for name in sorted(os.listdir(args.out)):
                info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                with open(os.path.join(args.out, name), "rb") as f:
                    z.writestr(info, f.read())
    print("%d conversations, %d messages, %d images in %s" % (args.conversations, messages, len(export.images), args.out))


if __name__ == "__main__":
    main()
