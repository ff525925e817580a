"""A handed-in program's files, unpacked safely into its folder (docs/programs.md,
"Handing in"): one source file, or a zip or tar archive of regular files and folders.
Nothing in an archive may name a place outside the folder (absolute names, `..`),
be a link or a device, or unpack to more than the caps, whatever its headers claim."""

from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import Path, PurePosixPath

MAX_FILES = 2000
MAX_BYTES = 64 << 20  # unpacked, in all
CHUNK = 1 << 16


class ArchiveRefused(ValueError):
    """Why the files cannot be taken."""


def _safe_name(name: str) -> PurePosixPath:
    path = PurePosixPath(name.replace("\\", "/"))
    if not name or path.is_absolute() or any(part in ("..", "") for part in path.parts) \
            or any(ord(char) < 32 for char in name) or len(name) > 255:
        raise ArchiveRefused(f"the archive names a file outside its folder: {name!r}")
    return path


class _Budget:
    def __init__(self) -> None:
        self.files = 0
        self.bytes = 0

    def file(self) -> None:
        self.files += 1
        if self.files > MAX_FILES:
            raise ArchiveRefused(f"the archive holds more than {MAX_FILES} files")

    def copy(self, source, target: Path) -> None:
        """Copy a member's bytes, counting them as they come (its header may lie)."""
        with open(target, "wb") as out:
            while chunk := source.read(CHUNK):
                self.bytes += len(chunk)
                if self.bytes > MAX_BYTES:
                    raise ArchiveRefused(f"the archive unpacks to more than "
                                         f"{MAX_BYTES >> 20} MiB")
                out.write(chunk)


def unpack(data: bytes, filename: str, folder: Path, single_as: str) -> list[str]:
    """Put the handed-in `data` (named `filename`) in `folder`: an archive (.zip, .tar,
    .tar.gz, .tgz, .tar.bz2, .tar.xz) unpacked, any other file saved as `single_as`.
    Returns the files' names, relative."""
    lower = filename.lower()
    budget = _Budget()
    unpacking = _unzip if lower.endswith(".zip") else _untar if lower.endswith(
        (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz")) else None
    if unpacking is not None:
        try:
            return unpacking(data, folder, budget)
        except ArchiveRefused:
            raise
        except (zipfile.BadZipFile, tarfile.TarError, RuntimeError, NotImplementedError,
                OSError, EOFError, ValueError) as error:
            raise ArchiveRefused(f"the archive cannot be unpacked: {error}") from None
    if len(data) > MAX_BYTES:
        raise ArchiveRefused(f"the file is larger than {MAX_BYTES >> 20} MiB")
    (folder / single_as).write_bytes(data)
    return [single_as]


def _place(folder: Path, path: PurePosixPath) -> Path:
    target = folder.joinpath(*path.parts)
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        raise ArchiveRefused(f"the archive holds {str(path)!r} twice")
    return target


def _unzip(data: bytes, folder: Path, budget: _Budget) -> list[str]:
    names = []
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for member in archive.infolist():
            path = _safe_name(member.filename.rstrip("/"))
            mode = member.external_attr >> 16
            if member.is_dir():
                folder.joinpath(*path.parts).mkdir(parents=True, exist_ok=True)
                continue
            if mode and (mode & 0o170000) not in (0, 0o100000):  # a link, a device
                raise ArchiveRefused(f"the archive holds something not a file: {str(path)!r}")
            budget.file()
            with archive.open(member) as source:
                budget.copy(source, _place(folder, path))
            names.append(str(path))
    return names


def _untar(data: bytes, folder: Path, budget: _Budget) -> list[str]:
    names = []
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as archive:
        for member in archive:
            path = _safe_name(member.name.rstrip("/"))
            if member.isdir():
                folder.joinpath(*path.parts).mkdir(parents=True, exist_ok=True)
                continue
            if not member.isreg():
                raise ArchiveRefused(f"the archive holds something not a file: {str(path)!r}")
            budget.file()
            budget.copy(archive.extractfile(member), _place(folder, path))
            names.append(str(path))
    return names
