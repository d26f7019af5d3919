"""From YAML text to a typed Spec, with every schema problem reported at its line and column."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from ascgen.common.errors import shown
from ascgen.dsl import spec as dsl
from ascgen.dsl.diagnostics import Diagnostic, SpecError, did_you_mean, one_of
from ascgen.dsl.yaml_loader import Loc, SourceMap, load_file, load_text
from ascgen.stages.registry import SCHEMAS, STAGE_KINDS

_STAGE_MODELS: dict[str, type[BaseModel]] = dict(SCHEMAS)


def _model_at(data: Any, loc: Loc) -> type[BaseModel] | None:
    """The pydantic model that describes the mapping at ``loc`` of the raw data."""
    model: type[BaseModel] | None = dsl.Spec
    node = data
    for part in loc:
        if isinstance(part, int):
            node = node[part] if isinstance(node, list) and part < len(node) else None
            if model is None and isinstance(node, dict) and "kind" in node:
                model = _STAGE_MODELS.get(str(node["kind"]))
            continue
        if model is None:
            return None
        if model is dsl.Spec and part == "stages":
            node = node.get(part) if isinstance(node, dict) else None
            model = None  # resolved at the next (index) step below
            continue
        field = model.model_fields.get(part)
        node = node.get(part) if isinstance(node, dict) else None
        model = _field_model(field.annotation) if field else None
    return model


def _field_model(annotation: Any) -> type[BaseModel] | None:
    args = getattr(annotation, "__args__", None)
    for candidate in (annotation, *(args or ())):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
    return None


def _stage_loc(loc: Loc) -> Loc:
    """pydantic puts the union tag into the location: stages.0.model.path -> stages.0.path."""
    if len(loc) >= 3 and loc[0] == "stages" and isinstance(loc[1], int) and loc[2] in _STAGE_MODELS:
        return (*loc[:2], *loc[3:])
    return loc


def _where(loc: Loc, data: Any) -> str:
    """A readable name for a location: stage 'decode'.max.width rather than stages.1.max.width."""
    if len(loc) >= 2 and loc[0] == "stages" and isinstance(loc[1], int):
        stages = data.get("stages") if isinstance(data, dict) else None
        item = stages[loc[1]] if isinstance(stages, list) and loc[1] < len(stages) else None
        label = f"stage '{item['name']}'" if isinstance(item, dict) and "name" in item else f"stage {loc[1] + 1}"
        return " ".join([label, ".".join(map(str, loc[2:]))]).strip()
    return ".".join(str(p) for p in loc) or "the spec"


def _a_value(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, dict | list):
        return "a mapping" if isinstance(value, dict) else "a list"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, int | float):
        return f"the number {value}"
    return f"'{value}'"


def _describe(err: ErrorDetails, loc: Loc, data: Any) -> tuple[str, bool]:
    """A message for one pydantic error, and whether it points at a key (not a value)."""
    kind = err["type"]
    where = _where(loc, data)
    if loc[-1:] == ("[key]",):  # a mapping's key, not its value: latency_ms: {a: 1}
        where = f"{_where(loc[:-2], data)}: key '{shown(str(loc[-2]))}'"
    got = err.get("input")
    if isinstance(got, float) and not math.isfinite(got) and kind not in ("finite_number", "int_type"):
        return f"{where}: expected a finite number, got {got} (.nan and .inf are not numbers here)", False
    if kind == "extra_forbidden":
        parent = _model_at(data, loc[:-1])
        known = [f.alias or name for name, f in parent.model_fields.items()] if parent else []  # as written
        hint = did_you_mean(str(loc[-1]), known)
        if not hint and known:
            hint = f"; known keys: {', '.join(known)}"
        return f"unknown key '{loc[-1]}'{hint}", True
    if kind == "missing":
        return f"missing required key '{loc[-1]}' in {_where(loc[:-1], data)}", False
    if kind == "union_tag_invalid":
        tag = str(err.get("ctx", {}).get("tag", ""))
        return f"unknown stage kind '{tag}'{did_you_mean(tag, STAGE_KINDS)}; expected one of " + one_of(
            STAGE_KINDS
        ), False
    if kind == "union_tag_not_found":
        return f"{where} needs a 'kind': one of {one_of(STAGE_KINDS)}", False
    if kind == "literal_error":
        expected = str(err.get("ctx", {}).get("expected", ""))
        choices = [c.strip().strip("'") for c in expected.replace(" or ", ", ").split(",")]
        got = str(err.get("input"))
        return f"{where}: '{got}' is not one of {one_of(choices)}{did_you_mean(got, choices)}", False
    if kind in ("model_type", "model_attributes_type", "dict_type", "list_type"):
        model = _model_at(data, loc) if kind != "list_type" else None
        keys = f" (keys: {', '.join(model.model_fields)})" if model else ""
        want = "a list" if kind == "list_type" else f"a mapping{keys}"
        return f"{where}: expected {want}, got {_a_value(err.get('input'))}", False
    if kind in ("int_type", "float_type", "string_type", "bool_type"):
        # Strict types: say what was written, e.g. `threads: yes` is YAML's boolean true.
        want = {"int_type": "a whole number", "float_type": "a number", "string_type": "a string",
                "bool_type": "true or false"}[kind]  # fmt: skip
        got = err.get("input")
        if kind == "int_type" and isinstance(got, float):
            fix = (
                "not a number"
                if not math.isfinite(got)
                else f"write {int(got)}"
                if got.is_integer()
                else "a fractional part"
            )
            return f"{where}: expected {want}, got {got} ({fix})", False
        quoted = " (YAML reads yes/no/on/off as booleans)" if isinstance(got, bool) else ""
        return f"{where}: expected {want}, got {_a_value(got)}{quoted}", False
    msg = err["msg"]
    if loc and loc[-1] == "[key]":
        return f"{where}: {msg[0].lower() + msg[1:]}", True
    if kind == "value_error":
        msg = msg.removeprefix("Value error, ")
    return f"{where}: {msg[0].lower() + msg[1:] if msg else msg}", False


def _member_tag(part: Any) -> bool:
    """Whether a location part is pydantic's name for one alternative of a union."""
    return isinstance(part, str) and (
        part in ("int", "float", "str", "bool")
        or part.startswith(("literal[", "list[", "dict[", "function-", "constrained-"))
    )


def _shape(value: Any) -> str:
    return "dict" if isinstance(value, dict) else "list" if isinstance(value, list) else "scalar"


def _member_shape(tag: str) -> str:
    return "dict" if tag.startswith("dict[") else "list" if tag.startswith("list[") else "scalar"


def _child(node: Any, part: str | int) -> tuple[bool, Any]:
    if isinstance(node, dict) and part in node:
        return True, node[part]
    if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
        return True, node[part]
    return False, None


def _union_split(loc: Loc, data: Any) -> tuple[Loc, str | None, Loc]:
    """(location of the union, the alternative's tag, the rest of the location without tags),
    or (loc, None, ()). A part is a tag only where the data has no such key ('list[' may be a key)."""
    node: Any = data
    kept: list[str | int] = []
    where: Loc = ()
    tag: str | None = None
    for part in loc:
        found, child = _child(node, part)
        if found:
            node = child
        elif _member_tag(part):
            if tag is None:
                where, tag = tuple(kept), str(part)
            continue
        kept.append(part)
    return (where, tag, tuple(kept[len(where) :])) if tag is not None else (tuple(kept), None, ())


def _scalar_kind(tag: str) -> str:
    """Which scalars a union's alternative takes: numbers (int, a constrained float) or text."""
    if tag in ("int", "float") or tag.startswith(("constrained-int", "constrained-float")):
        return "number"
    return "text" if tag == "str" or tag.startswith("literal[") else "other"


def _input_kind(value: Any) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return "number"
    return "text" if isinstance(value, str) else "other"


def _scalar_choices(
    errors: list[ErrorDetails], data: Any, shapes: dict[Loc, str], matching: set[Loc]
) -> dict[Loc, str]:
    """For a union of scalar alternatives (numa: device, none or 0..255), the one alternative
    whose errors are worth reporting: the one that takes the input's kind (a number's range error,
    not also "is not one of device or none"); for other inputs (true, null, a list) a number's."""
    tags: dict[Loc, list[str]] = {}
    inputs: dict[Loc, Any] = {}
    for err in errors:
        where, tag, rest = _union_split(tuple(err["loc"]), data)
        scalar_input = shapes.get(where) == "scalar" or where not in matching  # a list for numa: nothing takes it
        if tag is not None and not rest and scalar_input and _member_shape(tag) == "scalar":
            tags.setdefault(where, []).append(tag)
            inputs.setdefault(where, err.get("input"))
    chosen: dict[Loc, str] = {}
    for where, found in tags.items():
        if len(set(found)) < 2:
            continue
        want = _input_kind(inputs[where])
        preferred = [t for t in found if _scalar_kind(t) == (want if want != "other" else "number")]
        chosen[where] = (preferred or found)[0]
    return chosen


def _dedupe(errors: list[ErrorDetails], data: Any) -> list[ErrorDetails]:
    """Drop the noise pydantic adds for unions (one error per alternative): keep the errors of
    the alternative shaped like the input (a mapping, a list or a scalar; among scalars, the
    one taking the input's kind), else all of them. One bad value, one error."""
    shapes: dict[Loc, str] = {}
    for err in errors:
        where, tag, rest = _union_split(tuple(err["loc"]), data)
        if tag is not None and not rest:
            shapes.setdefault(where, _shape(err.get("input")))
    matching = {
        where
        for err in errors
        for where, tag, _ in [_union_split(tuple(err["loc"]), data)]
        if tag is not None and where in shapes and _member_shape(tag) == shapes[where]
    }
    scalar_choice = _scalar_choices(errors, data, shapes, matching)
    shown_union: set[Loc] = set()
    out: list[ErrorDetails] = []
    seen: set[tuple[Any, ...]] = set()
    for err in errors:
        where, tag, rest = _union_split(tuple(err["loc"]), data)
        if tag is not None and where in matching and _member_shape(tag) != shapes[where]:
            continue
        if tag is not None and where in scalar_choice and not rest and tag != scalar_choice[where]:
            continue
        if tag is not None and where in shapes and where not in matching and where not in scalar_choice:
            if where in shown_union:
                continue  # no alternative takes this shape (a list for a mapping or a number): one error
            shown_union.add(where)
        loc = (*where, *rest)
        key = (loc, err["type"] if err["type"] != "literal_error" else "lit")
        if key in seen:
            continue
        seen.add(key)
        out.append({**err, "loc": loc})
    return out


def spec_from_data(data: Any, smap: SourceMap) -> dsl.Spec:
    if not isinstance(data, dict):
        raise SpecError([smap.error((), "a spec is a mapping of keys (name, source, stages, ...)")])
    try:
        return dsl.Spec.model_validate(data)
    except ValidationError as exc:
        diags: list[Diagnostic] = []
        for err in _dedupe(exc.errors(include_url=False), data):
            loc = _stage_loc(tuple(err["loc"]))
            if err["type"] == "union_tag_invalid":
                loc = (*loc, "kind")
            message, at_key = _describe(err, loc, data)
            diags.append(smap.error(loc[:-1] if loc[-1:] == ("[key]",) else loc, message, key=at_key))
        # What the schema's failure does not hide: the checks of the well-formed parts.
        from ascgen.checks.partial import semantic_diagnostics, unique

        raise SpecError(unique(diags + semantic_diagnostics(data, smap))) from None


def parse_text(text: str, path: str) -> tuple[dsl.Spec, SourceMap]:
    data, smap = load_text(text, path)
    return spec_from_data(data, smap), smap


def parse_file(path: Path) -> tuple[dsl.Spec, SourceMap]:
    data, smap = load_file(path)
    return spec_from_data(data, smap), smap
