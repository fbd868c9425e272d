"""LaTeX → Unicode for bibliographic text (table-driven, one regex pass).

Handles what BibTeX exports actually contain: accents (``\\"{o}``, ``{\\"o}``,
``\\'e``, ``\\c{c}``, ``\\r a``, ``\\v{R}``), named letters (``\\aa``, ``\\ss``,
``\\o``, ``\\i``), escaped specials (``\\&``, ``\\%``, ``\\{``), spacing commands,
dashes and TeX quotes, formatting commands (``\\emph{…}`` keeps its argument),
math mode kept readable (``$\\mu$`` → ``μ``, ``$^2$`` → ``²``) and protection
braces removed. Unknown commands keep their name without the backslash, so no
text silently disappears.

Written by hand rather than with ``pylatexenc`` because a single compiled regex
with a fast path for plain text is many times faster on 100k-record files, and
the subset needed for bibliographic fields is small and fully tested.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

__all__ = ["latex_to_text"]

_ACCENTS: Final = {
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    '"': "\u0308",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    "c": "\u0327",
    "v": "\u030c",
    "r": "\u030a",
    "u": "\u0306",
    "H": "\u030b",
    "k": "\u0328",
    "d": "\u0323",
    "b": "\u0331",
    "t": "\u0361",
    "G": "\u030f",
}

_SYMBOLS: Final = {
    # letters
    "aa": "å",
    "AA": "Å",
    "ss": "ß",
    "SS": "SS",
    "o": "ø",
    "O": "Ø",
    "ae": "æ",
    "AE": "Æ",
    "oe": "œ",
    "OE": "Œ",
    "l": "ł",
    "L": "Ł",
    "i": "ı",
    "j": "ȷ",
    "dh": "ð",
    "DH": "Ð",
    "th": "þ",
    "TH": "Þ",
    "ng": "ŋ",
    "NG": "Ŋ",
    "dj": "đ",
    "DJ": "Đ",
    # text symbols
    "textendash": "–",
    "textemdash": "—",
    "ldots": "…",
    "dots": "…",
    "textellipsis": "…",
    "textquoteleft": "‘",
    "textquoteright": "’",
    "textquotedblleft": "“",
    "textquotedblright": "”",
    "textquotesingle": "'",
    "textquotedbl": '"',
    "guillemotleft": "«",
    "guillemotright": "»",
    "textasciitilde": "~",
    "textasciicircum": "^",
    "textbackslash": "\\",
    "textbar": "|",
    "textless": "<",
    "textgreater": ">",
    "textunderscore": "_",
    "textbraceleft": "{",
    "textbraceright": "}",
    "textdollar": "$",
    "textregistered": "®",
    "texttrademark": "™",
    "copyright": "©",
    "textcopyright": "©",
    "S": "§",
    "P": "¶",
    "dag": "†",
    "ddag": "‡",
    "textdagger": "†",
    "textbullet": "•",
    "textdegree": "°",
    "degree": "°",
    "euro": "€",
    "texteuro": "€",
    "pounds": "£",
    "textsterling": "£",
    "textperthousand": "‰",
    "textmu": "µ",
    "LaTeX": "LaTeX",
    "TeX": "TeX",
    "BibTeX": "BibTeX",
    "quad": " ",
    "qquad": " ",
    "space": " ",
    "enspace": " ",
    "thinspace": " ",
    "newline": " ",
    "par": " ",
    # greek
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "delta": "δ",
    "epsilon": "ε",
    "varepsilon": "ε",
    "zeta": "ζ",
    "eta": "η",
    "theta": "θ",
    "vartheta": "ϑ",
    "iota": "ι",
    "kappa": "κ",
    "lambda": "λ",
    "mu": "μ",
    "nu": "ν",
    "xi": "ξ",
    "pi": "π",
    "varpi": "ϖ",
    "rho": "ρ",
    "varrho": "ϱ",
    "sigma": "σ",
    "varsigma": "ς",
    "tau": "τ",
    "upsilon": "υ",
    "phi": "φ",
    "varphi": "φ",
    "chi": "χ",
    "psi": "ψ",
    "omega": "ω",
    "Gamma": "Γ",
    "Delta": "Δ",
    "Theta": "Θ",
    "Lambda": "Λ",
    "Xi": "Ξ",
    "Pi": "Π",
    "Sigma": "Σ",
    "Upsilon": "Υ",
    "Phi": "Φ",
    "Psi": "Ψ",
    "Omega": "Ω",
    # math
    "pm": "±",
    "mp": "∓",
    "times": "×",
    "div": "÷",
    "cdot": "·",
    "le": "≤",
    "leq": "≤",
    "ge": "≥",
    "geq": "≥",
    "neq": "≠",
    "ne": "≠",
    "approx": "≈",
    "sim": "∼",
    "simeq": "≃",
    "equiv": "≡",
    "propto": "∝",
    "infty": "∞",
    "partial": "∂",
    "nabla": "∇",
    "sum": "∑",
    "prod": "∏",
    "int": "∫",
    "sqrt": "√",
    "to": "→",
    "rightarrow": "→",
    "leftarrow": "←",
    "leftrightarrow": "↔",
    "Rightarrow": "⇒",
    "Leftarrow": "⇐",
    "uparrow": "↑",
    "downarrow": "↓",
    "in": "∈",
    "notin": "∉",
    "subset": "⊂",
    "subseteq": "⊆",
    "cup": "∪",
    "cap": "∩",
    "forall": "∀",
    "exists": "∃",
    "emptyset": "∅",
    "circ": "∘",
    "bullet": "•",
    "star": "⋆",
    "ell": "ℓ",
    "hbar": "ℏ",
    "langle": "⟨",
    "rangle": "⟩",
    "ll": "≪",
    "gg": "≫",
    "prime": "′",
    "cdots": "⋯",
    "log": "log",
    "ln": "ln",
    "exp": "exp",
    "sin": "sin",
    "cos": "cos",
    "max": "max",
    "min": "min",
    "lim": "lim",
}

#: Commands that only format their argument: the command goes, the argument stays.
_FORMAT: Final = frozenset(
    [
        "emph",
        "textit",
        "textbf",
        "textsc",
        "texttt",
        "textrm",
        "textsf",
        "textsl",
        "textup",
        "textmd",
        "textnormal",
        "textsuperscript",
        "textsubscript",
        "mbox",
        "hbox",
        "text",
        "mathrm",
        "mathbf",
        "mathit",
        "mathsf",
        "mathtt",
        "mathcal",
        "mathbb",
        "mathfrak",
        "mathnormal",
        "boldsymbol",
        "bm",
        "url",
        "href",
        "enquote",
        "uppercase",
        "lowercase",
        "MakeUppercase",
        "MakeLowercase",
        "ensuremath",
        "protect",
        "relax",
        "xspace",
        "it",
        "bf",
        "rm",
        "sc",
        "tt",
        "em",
        "sl",
        "sf",
        "small",
        "large",
        "Large",
        "normalsize",
        "footnotesize",
        "scriptsize",
        "tiny",
        "huge",
        "Huge",
        "nocorr",
        "left",
        "right",
        "big",
        "Big",
        "bigl",
        "bigr",
        "Bigl",
        "Bigr",
        "displaystyle",
        "textstyle",
        "ignorespaces",
        "unskip",
    ]
)

_SUPER: Final = str.maketrans("0123456789+-=()ni", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱ")
_SUB: Final = str.maketrans("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎")
_SUPER_OK: Final = frozenset("0123456789+-=()ni")
_SUB_OK: Final = frozenset("0123456789+-=()")

_SPECIAL: Final = re.compile(r"[\\{}$~]|--|``|''")

_TOKEN: Final = re.compile(
    r"""
    (?P<esc>\\[{}$&%\#_])
  | (?P<acc>\\(?P<amark>['"`^~=.])\s*(?:\{\s*(?P<abr>\\[ij](?![A-Za-z])|[A-Za-z]?)\s*\}
        |(?P<abare>\\[ij](?![A-Za-z])|[A-Za-z])))
  | (?P<lacc>\\(?P<lmark>[cvruHkdbtG])(?:\s*\{\s*(?P<lbr>\\[ij](?![A-Za-z])|[A-Za-z]?)\s*\}
        |\s+(?P<lbare>[A-Za-z])))
  | (?P<drop>\\(?:noopsort|hspace\*?|vspace\*?|label|index|nocite|bibinfo|kern|hskip)
        \s*\{[^{}]*\})
  | (?P<cmd>\\(?P<cname>[A-Za-z]+)\s*)
  | (?P<sym>\\[^A-Za-z])
  | (?P<math>\$\$?(?P<mbody>[^$]*)\$\$?)
  | (?P<dash>---?)
  | (?P<quote>``|'')
  | (?P<brace>[{}])
  | (?P<tilde>~)
    """,
    re.VERBOSE,
)

_MATH_TOKEN: Final = re.compile(
    r"""
    (?P<script>(?P<sop>[\^_])\s*(?:\{(?P<sbr>[^{}]*)\}|(?P<sbare>\\[A-Za-z]+|[^\s{}\\])))
  | (?P<esc>\\[{}$&%\#_])
  | (?P<cmd>\\(?P<cname>[A-Za-z]+)\s*)
  | (?P<sym>\\[^A-Za-z])
  | (?P<brace>[{}])
  | (?P<tilde>~)
    """,
    re.VERBOSE,
)

_CONTROL_SYMBOLS: Final = {
    "\\\\": " ",
    "\\ ": " ",
    "\\,": " ",
    "\\;": " ",
    "\\:": " ",
    "\\>": " ",
    "\\!": "",
    "\\/": "",
    "\\-": "",
    "\\@": "",
    "\\|": "‖",
}


def _accent(mark: str, letter: str) -> str:
    if letter == "\\i":
        letter = "i"
    elif letter == "\\j":
        letter = "j"
    combining = _ACCENTS.get(mark, "")
    if not letter:
        return unicodedata.normalize("NFC", " " + combining).strip() or combining
    return unicodedata.normalize("NFC", letter + combining)


def _command(name: str) -> str:
    sym = _SYMBOLS.get(name)
    if sym is not None:
        return sym
    if name in _FORMAT:
        return ""
    return name


def _script(op: str, body: str) -> str:
    body = _math(body).strip()
    if op == "^":
        if body in ("∘", "○"):
            return "°"
        if body == "′":
            return body
        if body and set(body) <= _SUPER_OK:
            return body.translate(_SUPER)
        return "^" + body
    if body and set(body) <= _SUB_OK:
        return body.translate(_SUB)
    return "_" + body


def _math_sub(m: re.Match[str]) -> str:
    kind = m.lastgroup
    if kind == "script":
        return _script(m["sop"], m["sbr"] if m["sbr"] is not None else m["sbare"])
    if kind == "esc":
        return m.group()[1]
    if kind == "cmd":
        return _command(m["cname"])
    if kind == "sym":
        return _CONTROL_SYMBOLS.get(m.group(), m.group()[1])
    if kind == "tilde":
        return " "
    return ""  # braces


def _math(body: str) -> str:
    return _MATH_TOKEN.sub(_math_sub, body)


def _sub(m: re.Match[str]) -> str:
    kind = m.lastgroup
    if kind == "esc":
        return m.group()[1]
    if kind == "acc":
        letter = m["abr"] if m["abr"] is not None else m["abare"]
        return _accent(m["amark"], letter)
    if kind == "lacc":
        letter = m["lbr"] if m["lbr"] is not None else m["lbare"]
        return _accent(m["lmark"], letter)
    if kind == "cmd":
        return _command(m["cname"])
    if kind == "sym":
        return _CONTROL_SYMBOLS.get(m.group(), m.group()[1])
    if kind == "math":
        return _math(m["mbody"])
    if kind == "dash":
        return "—" if len(m.group()) == 3 else "–"
    if kind == "quote":
        return "“" if m.group() == "``" else "”"
    if kind == "tilde":
        return " "
    return ""  # protection braces and dropped commands


def latex_to_text(value: str) -> str:
    """Plain Unicode text of a BibTeX field value (whitespace collapsed)."""
    if _SPECIAL.search(value) is not None:
        value = _TOKEN.sub(_sub, value)
    return " ".join(value.split())
