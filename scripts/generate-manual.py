#!/usr/bin/env python3
"""Writes docs/vault.1, the manual page, from the command definitions.

The definitions are ArgumentParser's: `vault --experimental-dump-help` prints them as JSON
(every command, its abstract and discussion, its arguments, options and flags), and this
script turns that into a man(7) page, so the manual never says something `--help` does not.
(ArgumentParser's own `generate-manual` plugin skips `vault`: the executable target does not
depend on ArgumentParser itself, VaultCLI does.)

    python3 scripts/generate-manual.py [--vault PATH] [--check]

--vault: the built `vault` (default .build/debug/vault). --check: fail when docs/vault.1 is
not what the definitions give (scripts/test.sh runs it): run without it after a change to a
command's help, and commit docs/vault.1.
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = os.path.join(ROOT, "docs", "vault.1")


def roff(text):
    """Text escaped for roff: backslashes, and a leading dot or quote that would read as a request."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    lines = []
    for line in text.split("\n"):
        if line.startswith(".") or line.startswith("'"):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


def names(argument):
    out = []
    for name in argument.get("names", []):
        out.append(("-" if name["kind"] == "short" else "--") + name["name"])
    return out


def usage(path, command):
    parts = [" ".join(path)]
    for argument in command.get("arguments", []):
        if not argument.get("shouldDisplay", True) or argument["kind"] == "flag":
            continue
        value = "<" + argument.get("valueName", "value") + ">"
        if argument["kind"] == "option":
            word = names(argument)[0] + " " + value
        else:
            word = value
        if argument.get("isRepeating"):
            word += " ..."
        parts.append("[" + word + "]" if argument.get("isOptional") else word)
    if any(a["kind"] == "flag" and a.get("shouldDisplay", True) for a in command.get("arguments", [])):
        parts.append("[flags]")
    return " ".join(parts)


def arguments(command):
    out = []
    for argument in command.get("arguments", []):
        if not argument.get("shouldDisplay", True) or argument.get("valueName") in ("help", "version"):
            continue
        if argument["kind"] == "positional":
            label = "\\fI" + roff(argument.get("valueName", "value")) + "\\fR"
        else:
            label = ", ".join("\\fB" + roff(n) + "\\fR" for n in names(argument))
            if argument["kind"] == "option":
                label += " \\fI" + roff(argument.get("valueName", "value")) + "\\fR"
        text = argument.get("abstract", "")
        if "defaultValue" in argument and argument["kind"] != "flag":
            text += " (default: " + str(argument["defaultValue"]) + ")"
        out += [".TP", label, roff(text)]
    return out


def section(path, command, out):
    if not command.get("shouldDisplay", True):
        return
    subcommands = command.get("subcommands", [])
    out += [".SS " + roff(" ".join(path)), roff(command.get("abstract", ""))]
    if command.get("discussion"):
        out += [".PP", roff(command["discussion"])]
    if not subcommands or command.get("arguments"):
        out += [".PP", "\\fB" + roff(usage(path, command)) + "\\fR"]
        out += arguments(command)
    for sub in subcommands:
        section(path + [sub["commandName"]], sub, out)


def manual(dump):
    root = dump["command"]
    out = [
        '.TH VAULT 1 "" "vault" "User Commands"',
        ".SH NAME",
        "vault \\- " + roff(root.get("abstract", "")),
        ".SH SYNOPSIS",
        "\\fBvault\\fR \\fIcommand\\fR [\\fIarguments\\fR] [\\fB\\-\\-vault\\fR \\fIDIR\\fR]",
        ".SH DESCRIPTION",
        roff(root.get("discussion", "")),
        ".PP",
        roff("Names of rooms and diary entries may be a path (rooms/부산-여행.md), a file name with "
             "or without .md, a room's slug or the start of its title, or a diary date (2026-11-21). "
             "A file argument of - is standard input or output."),
        ".SH COMMANDS",
    ]
    for sub in root.get("subcommands", []):
        section(["vault", sub["commandName"]], sub, out)
    out += [
        ".SH FILES",
        ".TP",
        "\\fIvault.yml\\fR",
        roff("The vault's configuration, synced with it (FORMAT.md, \"Configuration\")."),
        ".TP",
        "\\fI$XDG_CONFIG_HOME/vault/config.yml\\fR",
        roff("This machine's settings, never synced: API key approvals (api_keys) and the defaults "
             "model, provider, locale, editor, pager and color."),
        ".SH ENVIRONMENT",
        ".TP",
        "\\fBVAULT_DIR\\fR",
        roff("The vault, when --vault is not given."),
        ".TP",
        "\\fBVISUAL\\fR, \\fBEDITOR\\fR",
        roff("The editor (before editor: in the user configuration)."),
        ".TP",
        "\\fBOPENAI_API_KEY\\fR, \\fBOPENAI_BASE_URL\\fR",
        roff("The OpenAI-compatible server to talk to when vault.yml names no provider."),
        ".SH SEE ALSO",
        "\\fBgit\\fR(1)",
    ]
    return "\n".join(out) + "\n"


def main():
    args = sys.argv[1:]
    binary = os.path.join(ROOT, ".build", "debug", "vault")
    if "--vault" in args:
        binary = args[args.index("--vault") + 1]
    dump = json.loads(subprocess.run([binary, "--experimental-dump-help"], check=True, capture_output=True).stdout)
    text = manual(dump)
    if "--check" in args:
        current = open(OUTPUT, encoding="utf-8").read() if os.path.exists(OUTPUT) else ""
        if current != text:
            sys.exit("docs/vault.1 is not what the command definitions give: run scripts/generate-manual.py")
        return
    os.makedirs(os.path.dirname(OUTPUT), exist_ok=True)
    with open(OUTPUT, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
