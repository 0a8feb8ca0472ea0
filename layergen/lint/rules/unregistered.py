"""`unregistered`: a class `load_model` cannot find, for want of registration."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..edits import AddDecorator
from ..source import ClassInfo, SourceFile
from .base import Finding, Rule, Run, at
from .common import keras_package

RULE = Rule(
    "unregistered",
    "warning",
    "the class is not registered, so `load_model` cannot find it",
    "A saved `.keras` file names the class; loading it without `custom_objects` needs\n"
    "`@keras.saving.register_keras_serializable()` (or a project decorator that wraps it: set\n"
    "`registration-decorators` under [tool.layergen.check]).",
    "class Scale(keras.layers.Layer): ...",
    '@keras.saving.register_keras_serializable(package="my_layers")\nclass Scale(keras.layers.Layer): ...',
    fixable=True,
    default=False,
    keras3_only=True,
)


def check(source: SourceFile, cls: ClassInfo, run: Run) -> Iterator[Finding]:
    if not (cls.keras3 and _imports_keras(source)) or keras_package(source.path):
        # Keras 2 saves to a SavedModel by default, which restores a layer without its class
        # (and a file that imports no Keras may be either); Keras's own packages are found
        # by module path (serialization_lib.py).
        return
    if (
        cls.name.startswith(("_", "Base", "Abstract"))
        or cls.name in source.registered_names
        or id(cls) in run.subclasses
    ):
        return  # private, abstract or a base of other classes here: not saved by its own name
    for decorator in cls.decorators:
        short = decorator.rsplit(".", 1)[-1]
        if (
            short == "register_keras_serializable"
            or decorator in run.registrars
            or short in run.registrars
            or decorator == "keras.src.api_export.keras_export"
        ):
            return
    call = cls.methods.get("call")
    if call is not None and any(isinstance(n, ast.Raise) for n in call.body):
        return  # an abstract base
    spelling, needs_import = _registrar(source)
    decorator = f'{spelling}(package="{run.package}")'
    yield at(
        source,
        cls.node,
        "unregistered",
        f"`{cls.name}` is not registered: `load_model` cannot find it",
        f"add `@{decorator}`",
        fix=AddDecorator(cls.name, decorator, needs_import),
    )


def _imports_keras(source: SourceFile) -> bool:
    return any(n == "keras" or n.startswith("keras.") for n in source.imports.values())


def _registrar(source: SourceFile) -> tuple[str, bool]:
    """How this file spells `register_keras_serializable`, and whether `import keras` must
    be added for it."""
    for local, name in source.imports.items():
        if name.endswith("register_keras_serializable"):
            return local, False
    for local, name in source.imports.items():
        if name == "keras":
            return f"{local}.saving.register_keras_serializable", False
    return "keras.saving.register_keras_serializable", True
