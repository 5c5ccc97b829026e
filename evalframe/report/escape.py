"""The user's text as every format writes it: never as markup. The one module of escaping, for the report's formats
and the command line's Markdown tables (:mod:`evalframe.present.formats`, :mod:`evalframe.present.trec_formats`).

Every text a report holds is the user's (node, run, score and field names, queries, answers, contexts, ids, meta
fields and values, file names). In HTML it is escaped for an element or a quoted attribute (:func:`h`; :func:`hi`
isolates it inside a sentence of ours), in Markdown its HTML and Markdown syntax is escaped (:func:`md`,
:func:`md_code`), in every format the control characters are shown as their pictures (NUL as ``␀``: a browser drops
a NUL, a terminal runs an escape sequence) and a lone surrogate (a JSON ``"\\ud800"``) as U+FFFD (:func:`visible`;
JSON: its ``\\u`` escape, :func:`json_text`), so that UTF-8 can write it. No page embeds data in a script.
``tests/report/test_hostile_text.py`` loads pages with hostile text in every field in a browser.

Needs nothing beyond the standard library: ``evalframe trec --format markdown`` runs without pandas.

Examples
--------
>>> print(md("a|b <b>x</b>"), h("<b>"), visible("nul\\x00"))
a\\|b \\<b\\>x\\</b\\> &lt;b&gt; nul␀
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

__all__ = ["visible", "h", "hi", "md", "md_code", "json_text"]

#: The C0 control characters but tab, line feed and carriage return, and DEL: shown as their control pictures.
_CONTROLS = {**{code: 0x2400 + code for code in range(0x20) if code not in (9, 10, 13)}, 0x7F: 0x2421}
_SURROGATE = re.compile(r"[\ud800-\udfff]")
#: What Markdown (GitHub's: tables, math, strikethrough) or the HTML inside it reads as syntax, escaped by a backslash:
#: ``_`` where it may open or close an emphasis (not inside a word: ``recall_single_hit`` stays as it is).
_MD_SYNTAX = re.compile(r"[\\`*\[\]<>&|~$]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_LINE_BREAK = re.compile(r"\r\n|[\r\n]")


def visible(text: object) -> str:
    """``text`` as the report writes it: control characters as their pictures (``\x00`` as ``␀``), a lone surrogate
    as U+FFFD.

    Examples
    --------
    >>> visible("a\\x00b\\x1b[2J\\ud800")
    'a␀b␛[2J�'
    """
    return _SURROGATE.sub("\ufffd", str(text).translate(_CONTROLS))


def h(value: object) -> str:
    """``value`` as HTML text, for an element or a quoted attribute (``&``, ``<``, ``>``, ``"`` and ``'`` escaped).

    Examples
    --------
    >>> h("\\"'><img src=x onerror=alert(1)>")
    '&quot;&#x27;&gt;&lt;img src=x onerror=alert(1)&gt;'
    """
    return html.escape(visible(value), quote=True)


def hi(value: object) -> str:
    """The user's text inside a sentence of ours, isolated (``<bdi>``): a right-to-left override in it (U+202E)
    reverses none of the words after it.

    Examples
    --------
    >>> hi("abc\\u202edef")
    '<bdi>abc\\u202edef</bdi>'
    """
    return f"<bdi>{h(value)}</bdi>"


def md(value: Any) -> str:
    """The user's text for Markdown (a table cell or a line): on one line, every character Markdown or HTML would
    read as syntax escaped (``<b>`` is shown, not rendered bold; ``|`` does not end the cell).

    Examples
    --------
    >>> print(md("a|b <b>x</b> *y* snake_case _z_ ${1}"))
    a\\|b \\<b\\>x\\</b\\> \\*y\\* snake_case \\_z\\_ \\${1}
    """
    return _MD_SYNTAX.sub(lambda match: "\\" + match.group(), _LINE_BREAK.sub(" ", str(value)))


def md_code(value: Any) -> str:
    """The user's text as a Markdown code span outside a table (shown as it is: no escape works inside one), its
    fence longer than any run of backticks in it.

    Examples
    --------
    >>> print(md_code("bm25"), md_code("a`b"))
    `bm25` `` a`b ``
    """
    text = _LINE_BREAK.sub(" ", str(value))
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or fence != "`" else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def json_text(data: Any) -> str:
    """``data`` as JSON text, indented, UTF-8 kept; a lone surrogate (only ever inside a string) as its ``\\u``
    escape, which UTF-8 can write and a reader turns back into the same string.

    Examples
    --------
    >>> print(json_text({"query": "lone\\ud800"}))
    {
     "query": "lone\\ud800"
    }
    """
    text = json.dumps(data, indent=1, ensure_ascii=False, allow_nan=False)
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)
