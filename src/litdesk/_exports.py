"""A package's names imported from its modules on first use (PEP 562), so that importing
one name of a package (``from litdesk.services.dedup import keep_working_sets``) imports the
module that defines it, not every module of the package.

A package lists its names once, as imports under ``if TYPE_CHECKING:`` (what mypy, the
editors and the readers see) and in ``__all__``, and ends with::

    __getattr__ = lazy_exports(__name__, __file__, globals())

:func:`lazy_exports` reads that ``if TYPE_CHECKING:`` block of the package's own file (its
``from .module import name`` lines) and answers each name from its module when it is first
asked for, keeping it in the package's namespace (asked once)."""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable, MutableMapping
from pathlib import Path

__all__ = ["exported_names", "lazy_exports"]


def exported_names(path: str | Path) -> dict[str, tuple[str, str]]:
    """The names the ``if TYPE_CHECKING:`` blocks at the top level of the module file
    ``path`` import: each name → (the module it comes from, relative or absolute; its
    name there)."""
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    where: dict[str, tuple[str, str]] = {}
    for node in tree.body:
        if not (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.Name)
            and node.test.id == "TYPE_CHECKING"
        ):
            continue
        for imported in node.body:
            if isinstance(imported, ast.ImportFrom):
                module = "." * imported.level + (imported.module or "")
                for alias in imported.names:
                    where[alias.asname or alias.name] = (module, alias.name)
    return where


def lazy_exports(
    package: str, path: str, namespace: MutableMapping[str, object]
) -> Callable[[str], object]:
    """The ``__getattr__`` of the package ``package`` (its file ``path``, its globals
    ``namespace``): see the module's docstring."""
    where = exported_names(path)

    def __getattr__(name: str) -> object:
        found = where.get(name)
        if found is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, attribute = found
        if module.strip(".") == "":  # ``from . import _module``: a submodule itself
            value: object = importlib.import_module(f"{module}{attribute}", package)
        else:
            value = getattr(importlib.import_module(module, package), attribute)
        namespace[name] = value
        return value

    return __getattr__
