"""The list of stage kinds. Adding a kind: a module here, a template in templates/stages/,
and one line below."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Union

from pydantic import Field

from ascgen.dsl.dsl_base import StageBase
from ascgen.stages.base import FROM, Port, SpecView, StageContext, StageKind
from ascgen.stages.d2h import D2h
from ascgen.stages.detections import Detections
from ascgen.stages.h2d import H2d
from ascgen.stages.jpeg_decode import JpegDecode
from ascgen.stages.model import Model
from ascgen.stages.topk import Topk
from ascgen.stages.vdec import Vdec
from ascgen.stages.vpc_crop import VpcCrop
from ascgen.stages.vpc_letterbox import VpcLetterbox
from ascgen.stages.vpc_resize import VpcResize

if TYPE_CHECKING:
    from ascgen.dsl.profile import Profile
    from ascgen.dsl.yaml_loader import SourceMap

KINDS: dict[str, StageKind] = {
    k.kind: k
    for k in (H2d(), JpegDecode(), VpcResize(), VpcLetterbox(), Model(), D2h(), Topk(), Detections(), VpcCrop(), Vdec())
}
STAGE_KINDS = tuple(KINDS)
SCHEMAS: dict[str, type[StageBase]] = {name: kind.schema for name, kind in KINDS.items()}

# The `stages:` items of a spec: one schema per kind, chosen by `kind` (to a type checker, a StageBase).
if TYPE_CHECKING:
    Stage = StageBase
else:
    Stage = Annotated[Union[tuple(SCHEMAS.values())], Field(discriminator="kind")]  # noqa: UP007


def kind_of(stage: StageBase) -> StageKind:
    return KINDS[stage.kind]  # type: ignore[attr-defined]


def ports_of(stage: StageBase) -> tuple[Port, ...]:
    """A stage's inputs: its kind's, or `from` alone for a stand-in of a stage whose kind is
    unknown (ascgen/checks/partial.py)."""
    kind = KINDS.get(getattr(stage, "kind", ""))
    return kind.ports if kind is not None else (FROM,)


def producers_of(consumes: tuple[str, ...]) -> list[str]:
    """What an input that takes ``consumes`` (a kind's, or one of its ports') can read, for
    messages: kind names, or 'the source'."""
    names = [k.kind for k in KINDS.values() if k.produces in consumes]
    return (["the source"] if "source" in consumes else []) + names


def decoders_of(source_kind: str) -> list[StageKind]:
    return [k for k in KINDS.values() if k.decodes == source_kind]


def context(spec: SpecView, prof: Profile, index: int, smap: SourceMap | None = None) -> StageContext:
    """Stage ``index`` of ``spec`` as its kind's hooks see it."""
    return StageContext(spec, prof, index, tuple(kind_of(stage) for stage in spec.stages), smap)
