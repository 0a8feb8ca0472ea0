"""The one list of the codes layergen's diagnostics carry, with what each means: the source
of docs/errors.md (`python docs/gen_pages.py`). tests/unit/test_docs_site.py checks it
against the codes found in layergen's source, both ways. The codes of `layergen check`'s
findings are its rules' (docs/check/rules/)."""

INTRO = """# Errors

Every mistake is reported as `path:line:col: error: message [code]` with a hint, all of
them at once, exit status 2, and nothing is written:

```
layers/bad.layer.yaml:2:11: error: unknown name `sclae` [unknown-name]
  hint: did you mean `scale`?
```

What waits for you after a run (`conflict`, `hand-written`, `orphan`, `no-base`) is said
the same way, with exit status 1 (see [Editing generated code](editing.md)). Exit codes:
0 ok, 1 `--check` found work or something waits for you, 2 a mistake in the input.
The findings of `layergen check` are its [rules](check/rules/index.md)'.
"""

ERRORS = {
    # The declaration file.
    "yaml-syntax": "invalid YAML (for expressions in a flow mapping `{...}`: use block style or quote them; tabs; nesting deeper than 64 levels)",
    "several-documents": "a file of several YAML documents given to a command that takes one layer",
    "duplicate-key": "a key given twice",
    "yaml-alias": "anchors, aliases and merge keys are refused (so an alias bomb fails at once)",
    "yaml-key": "a key that is a mapping or a list",
    "yaml-tag": "a YAML tag (`!!python/...`): layergen reads plain values only",
    "empty": "an empty file",
    "encoding": "bytes that are not UTF-8 (or a string holding a lone surrogate)",
    "not-a-mapping": "a file that is not a mapping",
    "too-large": "a declaration file over the size a declaration may hold",
    "bad-number": "an integer too long for Python to write back (over ~4300 digits), or `.inf` / `.nan` / a float that overflows",
    "missing-kind": "no kind key (`layer:`, `loss:`, ...)",
    "doubled-kind": "two kind keys",
    "kind-mismatch": "a kind that disagrees with the file's suffix",
    # Names.
    "bad-class-name": "a class name that is not an identifier in CamelCase",
    "bad-name": "a name that is not an identifier (a key YAML reads as a number, a boolean or null; a name Python would normalize)",
    "reserved-name": "a name that is a Python keyword, shadows an attribute every Keras layer (or loss, ...) has, starts with `_`, or is one layergen's own code uses (`self`, `ops`, `keras`, `training`, `mask`, `upstream`)",
    "duplicate-name": "a name used twice (an op or method argument twice, a name that is also an import), or a class another declaration registers under the same name",
    "bad-package": "a registration package that is not a dotted name",
    # The declaration's shape.
    "unknown-key": "a key the format does not have (the closest suggested)",
    "missing-key": "a required key left out",
    "unknown-type": "a param type the format does not have",
    "wrong-type": "a value of the wrong type, or a param of another type than the key needs",
    "bad-type": "a param type for layers (a layer, a callable) in a loss, constraint, ...",
    "conflicting-keys": "two keys that cannot go together",
    "not-for-kind": "a key for layers in a declaration of another kind",
    "bad-default": "a default outside its own `min`/`max`/`gt`/`lt`/`choices`, or of the wrong type",
    "bad-bound": "bounds no value satisfies, a bound on a non-number, a rank outside 0..16",
    "bad-dtype": "a dtype Keras does not have",
    "param-order": "a required param after one with a default",
    "unknown-member": "a `hand_written` member the class does not have",
    # Code in the declaration.
    "unknown-name": "code: a name that is not in scope (the closest suggested)",
    "python-syntax": "code: a syntax error (or one only the compiler finds, such as `break` outside a loop), at its line and column inside the YAML value, whatever its style (`|`, `>`, quoted, plain)",
    "empty-code": "a code field with no code",
    "bad-import": "an `imports` item that is not import statements only (no `__future__` or star import)",
    "bad-return": "with `output_type: dict`, a `call` that returns a dict whose keys are not exactly the output names (or not string literals); a tuple in the declared order is fine too",
    "unknown-weight": "`updates` (or `aggregation`) on something that is not non-trainable state",
    "trainable-update": "an update of a trainable weight",
    "unknown-arg": "a gradient for an argument the op lacks, or a keyword a sublayer's constructor does not take (`unit:` for `Dense`)",
    # Keras objects.
    "unknown-activation": "an activation Keras does not know",
    "unknown-initializer": "an initializer Keras does not know",
    "unknown-regularizer": "a regularizer Keras does not know",
    "unknown-constraint": "a constraint Keras does not know",
    "unknown-class": "a sublayer class that `keras.layers` does not have (`keras.layers.MultiHeadAttn`), from layergen's table of Keras's layers (`layergen/keras_classes.py`), without importing Keras",
    "bad-class": "a class that is not a dotted class path",
    # Layouts.
    "unknown-axis": "a `layout` naming an axis that is not in `[tool.layergen] mesh-axes` (the closest suggested)",
    "bad-layout": "a layout with a wrong number of entries, on a shape of unknown rank, with one axis twice, a sublayer weight path that is not one, or on a sublayer whose `name` is computed",
    # The example and the tests.
    "unknown-param": "an `example` param the declaration does not have",
    "unknown-input": "an `example` input the declaration does not have",
    "missing-example": "an `example` that leaves out a required param or input",
    "bad-example": "an `example` value that does not fit its param or input",
    "unknown-test": "a test named under `tests: skip` that the generated module does not have",
    "unreached-branch": "a weight's, sublayer's or output's `when` over the params that no flip of a bool param of the example turns (`heads > 1`, `use_bias and units > 8` with `units: 4`): the generated tests build one side of it only, and skip `test_every_declared_branch_is_reached` naming it; said at its `when:` key with the params to set, on every run (a warning: the exit status and the files are as without it)",
    "untested-input": "a keyword input of `call` of a type the generated tests cannot make up a value of (a tensor, a str) that neither `example.call_args` nor `example.call_cases` gives a value other than its default (nor the cache, mask or causal tests pass): no test passes it, and `test_every_declared_branch_is_reached` is skipped naming it; said at its key under `inputs`, with what to give the example, on every run (a warning: the exit status and the files are as without it)",
    "record-failed": "`generate` could not run the layer, or the original class `example.original` names, to record its goldens",
    # The project and its files.
    "bad-module-name": "a declaration whose file name is not a Python module name",
    "outside-project": "a declaration outside the project (the folder of `pyproject.toml`)",
    "outside-paths": "`new --dir` outside the configured `paths`",
    "no-paths": "no path given and no `paths` in `[tool.layergen]`",
    "no-such-file": "a file or folder that does not exist",
    "no-file": "`adopt` given a file that does not exist",
    "cannot-read": "a file that cannot be read (permissions, a folder where a file should be)",
    "cannot-write": "a file that cannot be written (permissions, free space)",
    "partly-written": "a run that could not write, and could not put back the files it had written: run again",
    "not-a-declaration": "a file given to `generate` that is no declaration",
    "no-declarations": "a folder given to `generate` that holds no declarations",
    "duplicate-test": "two declarations whose tests would be one module",
    "taken-module": "a declaration that would write the files of another class, or of one renamed in the same run: move one class at a time, with `layergen mv`",
    "layouts-first-class": "a file of several layers where a layer other than the first declares layouts",
    "module-name-clash": "two classes of one file whose code defines one module-level name differently",
    "bad-template": "a project template that does not render, or renders what is not Python",
    "bad-lock": "a `layergen.lock` that cannot be read",
    "busy": "another layergen run holds the project longer than `LAYERGEN_LOCK_TIMEOUT` seconds",
    "changed-during-run": "files kept being saved while a run wrote: nothing is written",
    # What waits for you after a run (exit 1).
    "conflict": "lines changed both by hand and by the declaration, written between markers: settle them",
    "hand-written": "a declaration change to a member you own (`hand_written`): settle it with `resolve`",
    "orphan": "a file generated for a declaration that is gone, edited by hand: move what you need, then delete it",
    "no-base": "a generated file whose base is lost (no `layergen.lock` or `.layergen/base/`): what differs is marked in the file",
    # Renames.
    "name-taken": "a class renamed to a name its module already binds (a helper, an import)",
    "renamed-by-hand": "a class renamed in its module and not in its declaration: run `layergen sync`",
    "bad-move": "a `layergen mv` that cannot be followed",
    "stale-import": "a package `__init__.py` that would import a module or name the run deletes or renames, in a form layergen cannot rewrite: change the line it names",
    "base-from-declaration": "a lost base rendered again from the declaration (on disk, or as committed in git history) that gives the digest the lock records: said, with the text it came from",
    # new, sync, tests and adopt.
    "exists": "`new` for a declaration that exists (`--force` overwrites it)",
    "bad-option": "a command-line option with a value it cannot take",
    "no-class": "a module without the class named",
    "no-declaration": "`sync` on a module with no declaration beside it (for a hand-written layer: `layergen tests`)",
    "cannot-sync": "a hand edit the declaration cannot say: edit the declaration by hand, or undo the edit",
    "generated-module": "`layergen tests` on a module a declaration generates: its tests are the declaration's",
    "no-tests": "`layergen tests` alone before it has written tests for any layer",
    "unknown-example": "a required argument whose type the code does not say: pass `--example name=value`",
    "default-input-shape": "a layer whose code states no input rank: its tests use `(2, 4)` (a note)",
    "adopt-base": "`adopt` of a class whose base is not one Keras class",
    "adopt-call": "`adopt` of a `call` that takes `*args` or `**kwargs`",
    "adopt-registration": "`adopt` of a class registered under a package that is computed, or a name other than its own",
    "adopt-tested-class": "`adopt` of one class of a module whose other classes `layergen tests` tests",
    "adopt-tests": "`adopt` where the declaration's test module would replace a test module of yours",
    # Configuration and check.
    "unknown-config": "a key `[tool.layergen]` (or `.check`) does not have",
    "bad-config": "a configuration value of the wrong type or out of range",
    "toml-syntax": "a `pyproject.toml` that is not valid TOML",
    "bad-json": "a `.vscode/tasks.json` that `init` cannot read",
    "unknown-rule": "a rule code `check` does not have (`--select`, `--ignore`, `--explain`, settings)",
    "unreadable": "`check` given something that is not a file (a pipe, a device)",
    "dangling-link": "`check` skips a symbolic link to nothing (a warning)",
}
