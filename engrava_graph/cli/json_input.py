"""Reading the JSON files the daily commands take, with one-line errors that say what is wrong
and where: the line and column of a syntax error, the missing field, the invalid value's path;
and opening the files they write (``export -o``, ``explain --html``).
"""

from __future__ import annotations

import codecs
import errno
import io
import json
import os
import secrets
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, TYPE_CHECKING, BinaryIO

from pydantic import ValidationError

from engrava_graph.cli.errors import invalid
from engrava_graph.conversations import Message, validate_messages
from engrava_graph.model.errors import DatasetError, ValidationFailedError

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

CONVERSATION_FIELDS = ("conversation_id", "messages")


_JSON_TYPES = {dict: "object", list: "array", str: "string", int: "number", float: "number"}


def json_kind(value: object) -> str:
    """What a parsed JSON value is, in JSON's words (``object``, ``array``, ``string``,
    ``number``; ``true``, ``false`` or ``null`` itself), for "expected ..., found ..."."""
    return _JSON_TYPES.get(type(value)) or json.dumps(value)


TOO_DEEP = "the JSON is nested too deeply"
"""What a ``RecursionError`` of Python's JSON parser means (nesting deeper than it goes)."""


def problem(error: Exception) -> str:
    """What is wrong with a parsed JSON value, in one line (no exception class names).

    Args:
        error: a :class:`json.JSONDecodeError`, a :class:`NotUtf8Error`, a ``KeyError`` (a
            missing field), a pydantic ``ValidationError``, a :class:`ValidationFailedError`
            or another ``ValueError``; a ``RecursionError`` (JSON nested deeper than Python's
            parser goes).
    """
    if isinstance(error, RecursionError):
        return TOO_DEEP
    if isinstance(error, json.JSONDecodeError):
        return f"not valid JSON at line {error.lineno}, column {error.colno}: {error.msg}"
    if isinstance(error, KeyError):
        return f"missing field {error.args[0]!r}"
    if isinstance(error, ValidationError):
        return invalid(error.errors(include_url=False))
    if isinstance(error, ValidationFailedError) and error.errors:
        return invalid(error.errors)
    return " ".join(str(error).split())


class NotUtf8Error(ValueError):
    """Input that is not UTF-8 text.

    Attributes:
        byte: the first byte that is not UTF-8.
        offset: its position from the start of the input, in bytes (a byte order mark counted).
    """

    def __init__(self, byte: int, offset: int) -> None:
        super().__init__(
            f"not UTF-8 text (byte 0x{byte:02x} at offset {offset}); save the file as UTF-8"
        )
        self.byte = byte
        self.offset = offset


class Utf8Input:
    """A binary stream read as strict UTF-8 text, whole (:meth:`read`) or line by line
    (iteration, so a large export is never held at once), a leading byte order mark skipped.
    Lines keep their own line endings. A context manager: closes the stream on exit.

    Decoding is done here, a line at a time (a newline byte never falls inside a UTF-8
    sequence), so that :class:`NotUtf8Error` gives the bad byte's offset in the whole input; a
    text wrapper's decoding error counts from the start of its read buffer instead.

    Raises:
        NotUtf8Error: from :meth:`read` or the iteration, at the first byte that is not UTF-8.
    """

    def __init__(self, binary: BinaryIO) -> None:
        self._binary = binary
        self._offset = 0

    def __enter__(self) -> Utf8Input:
        return self

    def __exit__(self, *exc: object) -> None:
        self._binary.close()

    def _decode(self, data: bytes) -> str:
        skip = len(codecs.BOM_UTF8) if self._offset == 0 and data.startswith(codecs.BOM_UTF8) else 0
        try:
            text = data[skip:].decode("utf-8")
        except UnicodeDecodeError as error:
            at = skip + error.start
            raise NotUtf8Error(data[at], self._offset + at) from None
        self._offset += len(data)
        return text

    def read(self) -> str:
        """The rest of the input as text."""
        return self._decode(self._binary.read())

    def __iter__(self) -> Iterator[str]:
        for line in self._binary:
            yield self._decode(line)


def open_input(path: Path) -> Utf8Input:
    """``path`` opened for reading as UTF-8 text (a leading byte order mark skipped, as the
    REST API accepts one), or stdin's bytes for ``-``, read the same way: strict UTF-8 whatever
    the locale, so bytes that are not UTF-8 raise :class:`NotUtf8Error`, which :func:`problem`
    gives in one line (Python's stdin would let them through as lone surrogates, refused later
    as "invalid Unicode" in some field).

    Raises:
        DatasetError: the file does not exist or cannot be read (a usage error: exit code 2).
    """
    if str(path) == "-":
        binary = getattr(sys.stdin, "buffer", None)
        if binary is None:  # a text-only stdin (an embedding program's): its text as bytes again
            binary = io.BytesIO(sys.stdin.read().encode("utf-8", "surrogateescape"))
        return Utf8Input(binary)
    try:
        return Utf8Input(path.open("rb"))
    except OSError as error:
        raise DatasetError(f"{path}: cannot read it ({error.strerror or error})") from None


class OutputWriteError(OSError):
    """Writing an output file failed once it was open (a full disk, an I/O error): the message
    names the file, ``/dev/full: cannot write it (No space left on device)``. Not a usage
    error: the call was right, the disk or device failed it, so the error boundary gives it
    exit code 1 as any ``OSError`` (its ``errno`` is the failed write's)."""

    def __init__(self, path: Path, error: OSError) -> None:
        super().__init__(f"{path}: cannot write it ({error.strerror or error})")
        self.errno = error.errno
        self.path = path


class _OutputFile(io.FileIO):
    """The file under an output's text stream: a failed write (``ENOSPC``, ``EIO``), whether
    from the command's ``write`` or from the buffer's flush at close, is an
    :class:`OutputWriteError` naming ``shown`` (the file the user gave, not a temporary one)."""

    def __init__(self, path: Path, mode: str, shown: Path) -> None:
        super().__init__(path, mode)
        self._shown = shown

    def write(self, data: ReadableBuffer, /) -> int:
        """Write ``data`` as :class:`io.FileIO` does, a failure named by the output.

        Raises:
            OutputWriteError: the system refused the write.
        """
        try:
            return super().write(data)
        except OSError as error:
            raise OutputWriteError(self._shown, error) from None


def _text_output(path: Path, mode: str, shown: Path) -> IO[str]:
    """``path`` opened (``"w"`` or ``"x"``) as UTF-8 text as ``open()`` would, its write
    failures named by ``shown`` (:class:`_OutputFile`)."""
    raw = _OutputFile(path, mode, shown)
    return io.TextIOWrapper(io.BufferedWriter(raw), encoding="utf-8", line_buffering=raw.isatty())


@contextmanager
def open_output(path: Path | None, option: str) -> Iterator[IO[str]]:
    """``path`` opened for writing as UTF-8 text (closed on exit); stdout (left open) for None
    or ``-``. Its directory must exist: a mistyped path is refused, not created (as a shell's
    ``>`` does).

    A regular file (an existing one, through a symlink too, or a new one) is written to a
    temporary file beside it, which replaces it (keeping an existing file's permissions) only
    when the block ends without an exception: a command that fails leaves an existing file as
    it was and creates none. A FIFO or a device (``/dev/stdout``) is written directly.

    Args:
        path: the file a command writes.
        option: the option that named it (``--html``), for the message.

    Raises:
        DatasetError: the file cannot be opened for writing (a missing directory, a directory,
            no permission, a parent that is a file), naming it (a usage error: exit code 2).
        OutputWriteError: writing it failed (a full disk, an I/O error), naming it (exit
            code 1).
    """
    if path is None or str(path) == "-":
        yield sys.stdout
        return
    try:
        target = _replaced(path)
        sink = _text_output(path, "w", path) if target is None else _temporary_beside(target, path)
    except OSError as error:
        raise DatasetError(
            f"{path}: cannot write it ({_unwritable(path, error)}); choose another {option}"
        ) from None
    if target is None:
        with sink:
            yield sink
        return
    try:
        with sink:
            yield sink
            sink.flush()
            try:
                os.fsync(sink.fileno())
            except OSError as error:  # the data did not reach the disk (EIO)
                raise OutputWriteError(path, error) from None
        os.replace(sink.name, target)
    except BaseException:
        with suppress(OSError):
            os.unlink(sink.name)
        raise


def is_stdout(path: Path | None) -> bool:
    """Whether writing ``path`` writes this process's stdout: None, ``-``, or a name of the
    same open file (``/dev/stdout``, ``/dev/fd/1``), where a command prints nothing else."""
    if path is None or str(path) == "-":
        return True
    try:
        return os.path.samestat(os.stat(path), os.fstat(sys.stdout.fileno()))
    except (OSError, ValueError):  # no such file, or a stdout without a descriptor
        return False


_WRITTEN_DIRECTLY = ("/dev/", "/proc/")
"""Where paths name open descriptors and devices (``/dev/stdout``, ``/proc/self/fd/1``)."""


def written_in_place(path: Path | None) -> bool:
    """Whether :func:`open_output` writes ``path`` as it goes (stdout, a FIFO, a device: what
    was sent stays when the command fails) rather than replacing the file once it is whole."""
    if path is None or str(path) == "-":
        return True
    try:
        return _replaced(path) is None
    except OSError:  # open_output refuses it before anything is written
        return False


def _replaced(path: Path) -> Path | None:
    """The regular file that writing ``path`` replaces (its symlinks resolved; it need not
    exist yet), or None when ``path`` is written directly: a FIFO, a device, or a path through
    ``/dev`` or ``/proc``, which may be a descriptor the shell redirected.

    Raises:
        IsADirectoryError: it is a directory.
        PermissionError: it is a regular file this user may not write.
        OSError: it cannot be looked at.
    """
    target = Path(os.path.realpath(path))
    if any(str(p).startswith(_WRITTEN_DIRECTLY) for p in (path.absolute(), target)):
        return None
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        return target
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(target))
    if not stat.S_ISREG(mode):
        return None
    if not os.access(target, os.W_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(target))
    return target


def _temporary_beside(target: Path, shown: Path) -> IO[str]:
    """A new hidden file in ``target``'s directory (its ``name`` the path), open for UTF-8
    text, with ``target``'s permissions if it exists (else the umask's, as a new file gets);
    its write failures name ``shown``, the output the user gave."""
    name = target.parent / f".{target.name}.{secrets.token_hex(4)}.tmp"
    sink = _text_output(name, "x", shown)
    with suppress(FileNotFoundError):
        os.chmod(sink.fileno(), stat.S_IMODE(target.stat().st_mode))
    return sink


def _unwritable(path: Path, error: OSError) -> str:
    """Why ``path`` could not be opened for writing, in words."""
    parent = path.parent
    if isinstance(error, FileNotFoundError | NotADirectoryError):
        ancestor = next((p for p in (parent, *parent.parents) if p.exists()), None)
        if ancestor is not None and not ancestor.is_dir():
            return f"{ancestor} is a file, not a directory"
        return f"directory {parent} does not exist"
    return error.strerror or str(error)


def read_conversation(path: Path) -> tuple[str, list[Message]]:
    """Read and check an ``add-messages`` file: ``{"conversation_id": "...", "messages":
    [{"role" or "speaker", "content", "timestamp"?, "message_id"?, "metadata"?}, ...]}``.

    Returns:
        The conversation id and the validated messages.

    Raises:
        DatasetError: the file is not valid JSON (line and column), not an object, lacks a
            field or has an unknown one, or a message is invalid (its index and field), named
            by the file. The file does not exist or cannot be read.
    """
    stream = open_input(path)
    try:
        with stream:
            body = json.loads(stream.read())
        if not isinstance(body, dict):
            raise ValueError(
                f"expected a JSON object with {', '.join(CONVERSATION_FIELDS)}, "
                f"found {json_kind(body)}"
            )
        missing = [name for name in CONVERSATION_FIELDS if name not in body]
        if missing:
            raise KeyError(missing[0])
        unknown = [name for name in body if name not in CONVERSATION_FIELDS]
        if unknown:  # as the REST body refuses an unknown field
            raise ValueError(
                f"unknown field {unknown[0]!r}; the file holds {', '.join(CONVERSATION_FIELDS)}"
            )
        conversation_id = body["conversation_id"]
        return conversation_id, validate_messages(conversation_id, body["messages"])
    except (ValueError, KeyError, RecursionError) as error:
        raise DatasetError(f"{path}: {problem(error)}") from None
