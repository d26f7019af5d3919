"""The semantic checks that can still be judged when a spec fails its schema.

A spec with an unknown key should not hide its stage-order or geometry problems until the
next run. When the schema fails, the spec is rebuilt from its well-formed parts: each stage
is validated alone against its kind's schema, a broken top-level key falls back to its
default, and a check runs only when everything it reads is well-formed:

- stage names: always (a broken stage keeps its name when it has one);
- references between stages (`from`): always;
- stage order: over the stages before the first one whose kind is unknown;
- the source, layout and batch checks: when the keys they read are well-formed (and every
  stage, for a check that reads a stage's fields beyond its kind);
- the device profile: when ``device`` is well-formed;
- each stage's own checks: when every stage and every key a stage reads are well-formed.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ascgen.checks import spec as checks
from ascgen.checks.graph import check_inputs, check_references
from ascgen.dsl import profile as profiles
from ascgen.dsl import spec as dsl
from ascgen.dsl.diagnostics import Diagnostic
from ascgen.dsl.dsl_base import StageBase
from ascgen.dsl.yaml_loader import SourceMap
from ascgen.plan.graph import NOT_A_NAME
from ascgen.stages.base import FROM
from ascgen.stages.registry import KINDS, SCHEMAS, STAGE_KINDS

# What each structure check reads of the spec, besides the stages' kinds.
_READS = {
    "_source": {"source"},
    "_layout": {"streams", "sync_every", "submit", "batch"},
    "_batch_stages": {"batch"},
    "_expect": {"expect"},
    "_serving": {"source", "batching", "streams", "batch", "device"},
}
# Structure checks that read a stage's own fields (hw_gears), not only its kind: they need every
# stage well-formed (a broken stage's stand-in has none of its fields, so "the model needs
# hw_gears" would come beside the model's own error).
_READS_STAGE_FIELDS = {"_serving"}
# Top-level keys a stage's own checks may read (ctx.spec.*): not name, host or slo.
_STAGE_READS = {"device", "source", "threads", "streams", "submit", "sync_every", "buffers", "batch"}
_PLACEHOLDER = {"name": "pipeline", "source": {"kind": "jpeg_files"}}


def _broken(data: dict[str, Any]) -> tuple[set[str], set[int]]:
    """Top-level keys that fail the schema, and indexes of stages that do."""
    try:
        dsl.Spec.model_validate(data)
    except ValidationError as exc:
        keys: set[str] = set()
        stages: set[int] = set()
        for err in exc.errors(include_url=False):
            loc = err["loc"]
            if not loc or not isinstance(loc[0], str):
                continue
            if loc[0] == "stages" and len(loc) > 1 and isinstance(loc[1], int):
                stages.add(loc[1])
            else:
                keys.add(loc[0])
        return keys, stages
    return set(), set()


def _stage(item: Any, i: int) -> tuple[StageBase, bool, bool]:
    """(the stage or a stand-in naming it, whether it is well-formed, whether its kind is known)."""
    kind = item.get("kind") if isinstance(item, dict) else None
    name = item.get("name") if isinstance(item, dict) else None
    name = name if isinstance(name, str) else f"<stage {i + 1}>"  # never equal to a real name
    schema = SCHEMAS.get(kind) if isinstance(kind, str) else None
    ports = KINDS[kind].ports if isinstance(kind, str) and kind in KINDS else (FROM,)
    written = {port.field: item.get(port.key) for port in ports if port.key in item} if isinstance(item, dict) else {}
    # what it reads (the graph's checks); an input written but not as a name is neither read nor missing
    reads: dict[str, Any] = {k: v if isinstance(v, str) else NOT_A_NAME for k, v in written.items()}
    if schema is None:
        return StageBase.model_construct(None, name=name, **reads), False, False
    try:
        return schema.model_validate(item), True, True
    except ValidationError:
        fields: dict[str, Any] = {"name": name, "kind": kind, **reads}
        return schema.model_construct(**fields), False, True


def semantic_diagnostics(data: Any, smap: SourceMap) -> list[Diagnostic]:
    """The semantic problems of a spec that failed its schema, as far as they can be judged."""
    if not isinstance(data, dict) or not isinstance(data.get("stages"), list) or not data["stages"]:
        return []
    broken, _ = _broken(data)
    broken.discard("stages")  # judged stage by stage below
    parts = [_stage(item, i) for i, item in enumerate(data["stages"])]
    known = next((i for i, (_, _, k) in enumerate(parts) if not k), len(parts))
    fields = dsl.Spec.model_fields
    clean = {k: v for k, v in data.items() if k in fields and k not in broken and k != "stages"}
    clean.update({k: v for k, v in _PLACEHOLDER.items() if k in broken})
    clean["stages"] = [{"name": "placeholder", "kind": STAGE_KINDS[0]}]  # any valid stage; replaced below
    try:
        spec = dsl.Spec.model_validate(clean).model_copy(update={"stages": [s for s, _, _ in parts]})
    except ValidationError:
        return []

    out = checks._names(spec, smap) + check_references(spec, smap)
    if known:
        prefix = spec.model_copy(update={"stages": spec.stages[:known]})
        out += check_inputs(prefix, smap)
    stages_ok = all(ok for _, ok, _ in parts)
    if known == len(parts):
        for check, reads in _READS.items():
            if not reads & broken and (stages_ok or check not in _READS_STAGE_FIELDS):
                out += getattr(checks, check)(spec, smap)
    if "device" in broken:
        return out
    profile_errors = checks.check_profile(spec, smap)
    out += profile_errors
    if profile_errors or broken & _STAGE_READS or not stages_ok:
        return out
    return out + checks.check_stages(spec, profiles.load(spec.device.profile), smap)


def unique(diags: list[Diagnostic]) -> list[Diagnostic]:
    """Each diagnostic once (same file, position and message), in the order given."""
    seen: set[tuple[str, int, int, str]] = set()
    out = []
    for d in diags:
        key = (d.path, d.position.line, d.position.col, d.message)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out
