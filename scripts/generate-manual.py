#!/usr/bin/env python3
"""Writes docs/vault.1, the manual page, from the command definitions.

The definitions are ArgumentParser's: `vault --experimental-dump-help` prints them as JSON
(every command, its abstract and discussion, its arguments, options and flags), and this
script turns that into a man(7) page, so the manual never says something `--help` does not.
(ArgumentParser's own `generate-manual` plugin skips `vault`: the executable target does not
depend on ArgumentParser itself, VaultCLI does.) EXIT STATUS, ENVIRONMENT and EXAMPLES come
from `vault reference` (hidden), which prints VaultCLI's `Reference`: the exit statuses with
their meanings (`ExitStatus`), the environment variables vault reads, and examples.

    python3 scripts/generate-manual.py [--vault PATH] [--check]

--vault: the built `vault` (default .build/debug/vault). --check: fail when docs/vault.1 is
not what the definitions give, or when README.md's "Exit status" and "Environment" tables
differ from them (scripts/test.sh runs it): run without it after a change to a command's
help, and commit docs/vault.1.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = os.path.join(ROOT, "docs", "vault.1")
README = os.path.join(ROOT, "README.md")

# ArgumentParser's own `help` command says only "Show subcommand help information." and
# nothing of its argument: the manual says what it does in vault's words.
HELP_ABSTRACT = "Show a command's help: vault help diary list is vault diary list --help."
HELP_ARGUMENT = "The command, and its subcommand, to show the help of (nothing: vault's)."


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


def arguments(command, path_of_help=False):
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
        if path_of_help and argument["kind"] == "positional" and not text:
            text = HELP_ARGUMENT
        if "defaultValue" in argument and argument["kind"] != "flag":
            text += " (default: " + str(argument["defaultValue"]) + ")"
        out += [".TP", label, roff(text)]
    return out


def section(path, command, out):
    if not command.get("shouldDisplay", True):
        return
    subcommands = command.get("subcommands", [])
    is_help = path == ["vault", "help"]
    abstract = HELP_ABSTRACT if is_help else command.get("abstract", "")
    out += [".SS " + roff(" ".join(path)), roff(abstract)]
    if command.get("discussion"):
        out += [".PP", roff(command["discussion"])]
    if not subcommands or command.get("arguments"):
        out += [".PP", "\\fB" + roff(usage(path, command)) + "\\fR"]
        out += arguments(command, path_of_help=is_help)
    for sub in subcommands:
        section(path + [sub["commandName"]], sub, out)


def plain(text):
    """README's Markdown cell as the manual prints it: code spans without their backquotes."""
    return text.replace("`", "")


def sentence(text):
    """A table's meaning as a sentence: a capital (not for a command, `vault chat`) and a full stop."""
    if not text.startswith("`"):
        text = text[0].upper() + text[1:]
    return plain(text) + "."


def manual(dump, reference):
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
    ]
    for variable in reference["environment"]:
        text = variable["meaning"]
        if variable["default"]:
            text += " (default: " + variable["default"] + ")"
        out += [".TP", "\\fB" + roff(variable["name"]) + "\\fR", roff(sentence(text))]
    out += [".SH EXIT STATUS"]
    for row in reference["exit_statuses"]:
        out += [".TP", "\\fB" + roff(row["status"]) + "\\fR", roff(sentence(row["meaning"]))]
    out += [".SH EXAMPLES"]
    for example in reference["examples"]:
        out += [".PP", roff(example["meaning"]), ".PP", ".RS 4", "\\fB" + roff(example["command"]) + "\\fR", ".RE"]
    out += [
        ".SH SEE ALSO",
        "\\fBgit\\fR(1)",
    ]
    return "\n".join(out) + "\n"


def readme_table(header):
    """The rows of README.md's table under `header` (its header line), as lists of cells."""
    lines = open(README, encoding="utf-8").read().split("\n")
    if header not in lines:
        sys.exit("README.md has no table headed " + header)
    rows = []
    for line in lines[lines.index(header) + 2:]:
        if not line.startswith("| "):
            break
        # A cell may hold an escaped bar (`\\|`).
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        rows.append(cells)
    return rows


def readme_problems(reference):
    """How README.md's "Exit status" and "Environment" tables differ from the definitions."""
    problems = []
    statuses = [[r["status"], r["meaning"]] for r in reference["exit_statuses"]]
    if readme_table("| status | meaning |") != statuses:
        problems.append("README.md's exit-status table is not ExitStatus's (Sources/VaultCLI/Errors/ExitStatus+Meaning.swift)")
    variables = [["`" + v["name"] + "`", v["default"], v["meaning"]] for v in reference["environment"]]
    if readme_table("| variable | default | meaning |") != variables:
        problems.append("README.md's environment table is not Reference.environment (Sources/VaultCLI/Reference/Reference.swift)")
    return problems


def main():
    args = sys.argv[1:]
    binary = os.path.join(ROOT, ".build", "debug", "vault")
    if "--vault" in args:
        binary = args[args.index("--vault") + 1]
    dump = json.loads(subprocess.run([binary, "--experimental-dump-help"], check=True, capture_output=True).stdout)
    reference = json.loads(subprocess.run([binary, "reference"], check=True, capture_output=True).stdout)
    text = manual(dump, reference)
    if "--check" in args:
        current = open(OUTPUT, encoding="utf-8").read() if os.path.exists(OUTPUT) else ""
        problems = readme_problems(reference)
        if current != text:
            problems.append("docs/vault.1 is not what the command definitions give: run scripts/generate-manual.py")
        if problems:
            sys.exit("\n".join(problems))
        return
    os.makedirs(os.path.dirname(OUTPUT), exist_ok=True)
    with open(OUTPUT, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
