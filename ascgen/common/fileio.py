"""Reading and writing files the user names: reads are bounded and refuse what is not a
regular file (a FIFO would block, /dev/zero never ends); writes are atomic (a failure never
leaves a half-written file or tree behind), get the modes the umask asks for, and fail as
one-line user errors naming the path and the operating system's reason."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path

from ascgen.common.errors import UserError, shown


class FileRefused(Exception):
    """A file that cannot be read as asked; the message is one line without the path."""


def _kind(mode: int) -> str:
    kinds = {
        stat.S_ISDIR: "a folder",
        stat.S_ISFIFO: "a FIFO",
        stat.S_ISCHR: "a character device",
        stat.S_ISBLK: "a block device",
        stat.S_ISSOCK: "a socket",
    }
    return next((name for test, name in kinds.items() if test(mode)), "not a regular file")


def read_bounded(path: Path, limit: int) -> bytes:
    """The bytes of the regular file ``path``, refused when it holds more than ``limit``.

    Opened without blocking (a FIFO would wait for a writer) and read at most limit + 1
    bytes, so a huge or endless file costs no memory."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise FileRefused(f"cannot read: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(f"{_kind(info.st_mode)}, not a regular file; give a file")
        if info.st_size > limit:
            raise FileRefused(f"the file is larger than {limit} bytes")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise FileRefused(f"the file is larger than {limit} bytes")
        return b"".join(chunks)
    except OSError as exc:
        raise FileRefused(f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _obstacle(path: Path) -> Path | None:
    """The nearest ancestor of ``path`` (or itself) that exists but is not a folder."""
    for p in (path, *path.parents):
        if p.exists() or p.is_symlink():
            return None if p.is_dir() else p
    return None


def _cannot_write(path: Path, exc: OSError) -> UserError:
    reason = exc.strerror or str(exc)
    blocker = _obstacle(path.parent if exc.errno == errno.ENOTDIR else path)
    if exc.errno in (errno.EEXIST, errno.ENOTDIR) and blocker is not None:
        reason = f"{blocker} is a file, not a folder"
    return UserError(f"cannot write {path}: {reason}")


def ensure_dir(path: Path) -> None:
    """Create the folder ``path`` (and its parents) for writing; a user error when it cannot be."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _cannot_write(path, exc) from None
    if not path.is_dir():
        raise UserError(f"cannot write {path}: it exists and is not a folder")
    if not os.access(path, os.W_OK | os.X_OK):
        raise UserError(f"cannot write {path}: Permission denied")


NAME_MAX = 255  # bytes of one file or folder name (Linux)
PATH_MAX = 4095  # bytes of a whole path


def _check_length(path: Path) -> None:
    """The system's ENAMETOOLONG, found by looking at the name rather than by an OSError later."""
    too_long = any(len(os.fsencode(part)) > NAME_MAX for part in path.parts)
    if too_long or len(os.fsencode(str(path.absolute()))) > PATH_MAX:
        raise UserError(f"cannot write {shown(str(path))}: {os.strerror(errno.ENAMETOOLONG)}")


def check_can_write(path: Path) -> None:
    """check_can_create for the folder of the file ``path``, and its name's length."""
    _check_length(path)
    check_can_create(path.parent)


def check_can_create(folder: Path) -> None:
    """A user error now, before any long work, when ``folder`` could not be created or written
    later; creates nothing (a probe folder is made and removed in the nearest existing ancestor)."""
    _check_length(folder)
    blocker = _obstacle(folder)
    if blocker is not None:
        raise UserError(f"cannot write {folder}: {blocker} is a file, not a folder")
    base = next(p for p in (folder, *folder.parents) if p.exists())
    try:
        probe = tempfile.mkdtemp(prefix=".ascgen-probe.", dir=base)
    except OSError as exc:
        raise UserError(f"cannot write {folder}: {exc.strerror or exc}") from None
    os.rmdir(probe)


def write_atomic(path: Path, text: str | bytes) -> None:
    """Write ``text`` (or bytes) to ``path`` via a temporary file and rename (LF line endings);
    the file gets mode 0666 less the umask, as a plain open() would give it."""
    if path.is_dir():
        raise UserError(f"cannot write {path}: it is a folder; name a file")
    ensure_dir(path.parent)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as exc:
        raise _cannot_write(path, exc) from None
    try:
        if isinstance(text, bytes):
            with os.fdopen(fd, "wb") as fb:
                fb.write(text)
        else:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise _cannot_write(path, exc) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _remove(path: Path) -> None:
    """Remove a file or a folder tree (a leftover of an interrupted write)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def write_tree_atomic(root: Path, files: Mapping[str, str]) -> None:
    """Replace the folder ``root`` with exactly ``files`` ({relative path: text}), all or nothing.

    Folders get mode 0777 and files 0666, less the umask. A file (not a folder) at ``root`` is
    refused rather than replaced."""
    if root.exists() and not root.is_dir():
        raise UserError(f"cannot write {root}/: a file is in the way; remove it or choose another --out")
    ensure_dir(root.parent)
    old = root.with_name(f".{root.name}.old")
    mask = _umask()
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{root.name}.", dir=root.parent))
    except OSError as exc:
        raise _cannot_write(root, exc) from None
    try:
        os.chmod(staging, 0o777 & ~mask)
        for rel, text in sorted(files.items()):
            target = staging / rel
            target.parent.mkdir(mode=0o777, parents=True, exist_ok=True)
            with target.open("w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
        _remove(old)
        if root.exists():
            root.rename(old)
        staging.rename(root)
    except OSError as exc:
        _undo(staging, old, root)
        raise _cannot_write(root, exc) from None
    except BaseException:
        _undo(staging, old, root)
        raise
    with contextlib.suppress(OSError):  # the new tree is in place; the next write removes a leftover
        _remove(old)


def _undo(staging: Path, old: Path, root: Path) -> None:
    shutil.rmtree(staging, ignore_errors=True)
    if old.exists() and not root.exists():
        old.rename(root)
