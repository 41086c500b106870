"""Text that came from a spec, made safe for each place it goes.

A spec's strings are UTF-16 and may hold anything, including lone surrogates
(``String.fromCharCode(0xd800)``, which serialization tests use on purpose), NUL and other
control characters. They reach Python in three ways, and keep their lone surrogates each way:

- as JSON (WIPC CALL payloads and the report): as-test's serializer (1.0.7 and 1.8.0) escapes a
  lone surrogate as ``\\ud800``, so these bytes are valid UTF-8 and ``json.loads`` turns the
  escape back into that surrogate;
- as raw bytes (plain stdout and stderr, wasi-shim's abort message): AssemblyScript's
  ``String.UTF8.encode`` writes a lone surrogate as its three-byte WTF-8 form (``ED A0 80``),
  which strict UTF-8 rejects; ``decode_guest_utf8`` keeps it as that surrogate;
- as UTF-16 (the bindings target's ``abort`` and ``console.log`` strings): ``decode_guest_utf16``.

A Python ``str`` with a lone surrogate cannot be encoded as UTF-8, so every sink says here what it
does with one (docs/results.md): JSON keeps it exactly, as its ``\\uXXXX``
escape; text files, the console, JUnit XML and TAP show it as the same six characters
``\\ud800``; snapshot files write U+FFFD, as Node (and so as-test) does.

Whatever a spec says is also made inert where it is printed (docs/ci-integration.md): a terminal
acts on control characters (ESC starts sequences that set the window title, write the clipboard,
clear the screen) and a GitHub Actions runner reads any line of a step's output that starts with
``::`` (after leading whitespace), or holds ``##[``, as a workflow command. So every line we print
goes through ``for_stream``: control characters but colours become visible escapes (``\\x1b``),
colours are kept on a colour stream and dropped on another, and under GitHub Actions a line that
would parse as a command gets a ``\\`` that breaks it. Only our own annotations
(output/github_actions.py) pass as commands, through ``own_commands_for_stream``. A field that
must stay one line (a test's or spec's name, a value, a log line, a warning) is ``inert_field``
first: its line breaks and colours show as ``\\n`` and ``\\x1b[31m``, so only the spec's output
and the compiler's messages, which carry colours of their own, keep them.
"""

from __future__ import annotations

import codecs
import os
import sys
from typing import Final, TextIO

from astest_tasks.core.lazy_pattern import LazyPattern
from astest_tasks.core.terminal_env import in_github_actions, use_colour

# Codec error handler names are process-wide; this one is ours.
_WTF8_ERRORS: Final = "astest-tasks-wtf8"

# XML 1.0's Char production, less DEL and the C1 controls: what is outside the production cannot
# appear in a document, not even escaped; those two it allows but discourages (XML 1.0 section
# 2.2), and a terminal acts on them (0x9b is CSI) when someone reads the file in one.
_NOT_XML_CHAR: Final = LazyPattern(
    "[^\t\n\r\u0020-\u007e\u00a0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)
# Outside YAML 1.1's printable set (what PyYAML's reader accepts), or one of its line breaks
# (NEL, LS, PS), which a quoted scalar would fold into a space: these must be escaped.
_NOT_YAML_PRINTABLE: Final = LazyPattern(
    "[^\t\u0020-\u007e\u00a0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)
_LONE_SURROGATE: Final = LazyPattern("[\ud800-\udfff]")
# A colour (SGR) sequence, the only one we write ourselves, or a character a terminal acts on: C0
# but tab and line feed (CR rewrites a line, and a runner splits lines at it), DEL, ESC and C1
# (0x9b is CSI on its own in some terminals).
_SGR = "\x1b\\[[0-9;]*m"
_TERMINAL_CONTROL: Final = LazyPattern(f"{_SGR}|[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SGR_PATTERN: Final = LazyPattern("\x1b\\[([0-9;]*)m")
_RESETS: Final = frozenset({"", "0"})  # SGR 0 (also written with no parameter) ends every attribute
# What must not break a one-line field: every control character and Unicode's own line breaks.
# Colour too: a name or a value has none of its own (only output and diagnostics do).
_FIELD_CONTROL: Final = LazyPattern("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED_ESCAPES: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# What a runner skips before it looks for ``::``: .NET's Trim() whitespace (we also skip colours,
# so a painted line is judged by its text).
_LEADING_BLANK: Final = LazyPattern(f"(?:\\s|{_SGR})*")


def _keep_wtf8_surrogates(error: UnicodeError) -> tuple[str, int]:
    """Decode a WTF-8 surrogate (``ED A0-BF 80-BF``) as itself; any other bad byte as U+FFFD."""
    if not isinstance(error, UnicodeDecodeError):
        raise error
    data = error.object
    start = error.start
    three = data[start : start + 3]
    if (
        len(three) == 3
        and three[0] == 0xED
        and 0xA0 <= three[1] <= 0xBF
        and three[2] & 0xC0 == 0x80
    ):
        code = ((three[0] & 0x0F) << 12) | ((three[1] & 0x3F) << 6) | (three[2] & 0x3F)
        return chr(code), start + 3
    return "\ufffd", error.end


codecs.register_error(_WTF8_ERRORS, _keep_wtf8_surrogates)


def decode_guest_utf8(data: bytes | bytearray | memoryview) -> str:
    """Bytes a spec wrote, as text: lone surrogates kept, any other invalid byte as U+FFFD."""
    return bytes(data).decode("utf-8", errors=_WTF8_ERRORS)


def decode_guest_utf16(data: bytes | bytearray | memoryview) -> str:
    """An AssemblyScript string's UTF-16LE bytes, as text: lone surrogates kept (an odd trailing
    byte, which no AssemblyScript string has, becomes U+FFFD)."""
    whole = len(data) - len(data) % 2
    text = bytes(data[:whole]).decode("utf-16-le", errors="surrogatepass")
    return text + "\ufffd" if whole < len(data) else text


def encode_wtf8(text: str) -> bytes:
    """Text as the guest's own ``String.UTF8.encode`` writes it (WTF-8): a lone surrogate as its
    three bytes. A snapshot reply so reaches the spec as the surrogate it sent, and guest text the
    host puts into the spec's stdout or stderr reads back exactly through ``decode_guest_utf8``."""
    return text.encode("utf-8", errors="surrogatepass")


def utf8_file_bytes(text: str) -> bytes:
    """Text for a UTF-8 file: each lone surrogate as ``\\ud800``, everything else as it is.

    Inside a JSON string those six characters are the surrogate's own escape, so JSON dumped with
    ``ensure_ascii=False`` and written through here stays exact.
    """
    return text.encode("utf-8", errors="backslashreplace")


def for_stream(text: str, stream: TextIO) -> str:
    """``text`` as it may be printed to ``stream``: inert (``terminal_text``: control characters
    but our own colours as escapes, and under GitHub Actions no line a runner would read as a
    command) and reduced to what the stream can encode (``encodable``)."""
    return encodable(terminal_text(text, use_colour(stream), in_github_actions(os.environ)), stream)


def doit_line(text: str, stream: TextIO) -> str:
    """A line doit prints as it is on ``stream`` (its ``ERROR:`` line for an error we raise, a
    task's doc in ``doit list``): kept to its line (``inert_field``) and made inert as every line
    we print is (``for_stream``), since it may quote a path or a config value."""
    return for_stream(inert_field(text), stream)


def own_commands_for_stream(text: str, stream: TextIO) -> str:
    """Our own workflow commands (their properties and message already escaped as GitHub's toolkit
    escapes them), made inert for a terminal but left readable as commands by the runner."""
    return encodable(terminal_text(text, use_colour(stream), github_actions=False), stream)


def terminal_text(text: str, colour: bool, github_actions: bool) -> str:
    """Text to print: each control character a terminal or runner would act on as a visible escape
    (colour sequences kept when ``colour``), and under ``github_actions`` each line that a runner
    would parse as a workflow command (``::name::`` after leading blanks, ``##[name]`` anywhere)
    broken by a backslash: ``\\::stop-commands::x``, ``##\\[group]``."""
    text = text.replace("\r\n", "\n")
    if text.isascii() and text.replace("\n", "").replace("\t", "").isprintable():
        # Nothing to show as an escape: of ASCII, the pattern takes what is not printable but
        # tab and line feed (ESC among it, so no colour either). Most text is such; the pattern
        # needs not be compiled (0.4 million instructions, issue 40).
        safe = text
    else:
        safe = _TERMINAL_CONTROL.sub(lambda match: _control_shown(match.group(), colour), text)
    if colour and "\x1b[" in safe:
        safe = "\n".join(_colours_closed(line) for line in safe.split("\n"))
    if not github_actions:
        return safe
    return "\n".join(_not_a_command(line) for line in safe.split("\n"))


def _colours_closed(line: str) -> str:
    """``line`` with a reset at its end when a colour it sets is still on there: a spec's output
    (or a compiler's message) that sets black on black, conceal or blink and never resets would
    otherwise paint every line printed after it, our summary's too. Our own lines reset what they
    paint, and so are left as they are."""
    parameters = [found.group(1) for found in _SGR_PATTERN.finditer(line)]
    if not parameters or parameters[-1] in _RESETS:
        return line
    return line + "\x1b[0m"


def _control_shown(found: str, colour: bool) -> str:
    if len(found) > 1:  # a colour sequence
        return found if colour else ""
    return _NAMED_ESCAPES.get(found) or _escaped_code(found)


def _not_a_command(line: str) -> str:
    leading = _LEADING_BLANK.match(line)
    cut = leading.end() if leading is not None else 0
    if line.startswith("::", cut):
        line = f"{line[:cut]}\\{line[cut:]}"
    return line.replace("##[", "##\\[")


def inert_field(text: str) -> str:
    """A field that must stay on its line (a name, a value, a log line, a path): every control
    character, line breaks and ESC included, as a visible escape (``\\n``, ``\\x1b``). Only
    the spec's output and the compiler's messages keep their colours (``for_stream``)."""
    if text.isascii() and text.isprintable():
        # Nothing to escape: of ASCII, the pattern's class holds exactly what is not printable
        # (C0 and DEL). Most fields are such text, and compiling the pattern (its class reaches
        # past Latin-1) costs 2.4 million instructions, which a call with nothing to do saves
        # (issue 40).
        return text
    return _FIELD_CONTROL.sub(
        lambda match: _NAMED_ESCAPES.get(match.group()) or _escaped_code(match.group()), text
    )


def encodable(text: str, stream: TextIO) -> str:
    """``text`` reduced to what ``stream`` can encode: whatever its encoding (``LANG=C``,
    ``PYTHONIOENCODING=ascii``, a pipe) cannot hold is written as a backslash escape
    (``\\ud800``, ``\\xe9``, ``\\U0001f600``) instead of raising."""
    encoding = _encoding_of(stream)
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        return text.encode(encoding, errors="backslashreplace").decode(encoding)
    except LookupError:  # a stream that names an encoding Python does not know
        return text.encode("ascii", errors="backslashreplace").decode("ascii")
    return text


def _encoding_of(stream: TextIO) -> str:
    """The encoding text written to ``stream`` ends up in. doit's ``Writer`` (what an action's
    ``sys.stdout``/``sys.stderr`` is while doit captures it) has none of its own: its
    ``orig_stream`` is the terminal or pipe; a bare buffer's text goes to the real stdout."""
    for candidate in (stream, getattr(stream, "orig_stream", None), sys.__stdout__):
        encoding = getattr(candidate, "encoding", None)
        if isinstance(encoding, str) and encoding:
            return encoding
    return "utf-8"


def _escaped_code(character: str) -> str:
    code = ord(character)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def xml_text(text: str) -> str:
    """Text for an XML 1.0 document: characters XML cannot hold at all (NUL and other C0 controls,
    lone surrogates, U+FFFE/U+FFFF) and the controls it discourages (DEL, C1) as backslash
    escapes (``\\x00``, ``\\x9b``, ``\\ud800``), the rest as it is (the XML writer escapes
    markup)."""
    return _NOT_XML_CHAR.sub(lambda match: _escaped_code(match.group()), text)


def yaml_double_quoted(text: str) -> str:
    """A YAML double-quoted scalar that reads back as exactly ``text``: YAML's escapes cover every
    character, lone surrogates included (``\\ud800``)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    escaped = escaped.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    return '"' + _NOT_YAML_PRINTABLE.sub(lambda match: _escaped_code(match.group()), escaped) + '"'


def one_line_text(text: str) -> str:
    """Text for a line-oriented format (a TAP test line): lone surrogates as ``\\ud800``."""
    return _LONE_SURROGATE.sub(lambda match: _escaped_code(match.group()), text)


def as_node_writes(text: str) -> str:
    """What Node writes to a UTF-8 file for ``text``: each lone surrogate becomes U+FFFD."""
    return _LONE_SURROGATE.sub("\ufffd", text)
